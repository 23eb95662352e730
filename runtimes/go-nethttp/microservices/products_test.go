package microservices

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// The product vectors' bodies, checked without a database: every 400 and
// 422 body, and every valid body parsed to the fields the answer echoes.
func TestProductBodyVectors(t *testing.T) {
	v, err := LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range v.Products {
		if c.Body == nil {
			continue
		}
		checked++
		in, err := ParseProduct([]byte(*c.Body))
		switch c.Status {
		case 400, 422:
			if got := status(err); got != c.Status {
				t.Errorf("%s: status %d (%v), want %d", c.Name, got, err, c.Status)
			}
			if c.Status == 422 {
				var want struct{ Invalid []string }
				_ = json.Unmarshal(c.Response, &want)
				var ve *ValidationError
				if errors.As(err, &ve) && !reflect.DeepEqual(ve.Invalid, want.Invalid) {
					t.Errorf("%s: invalid %q, want %q", c.Name, ve.Invalid, want.Invalid)
				}
			}
		default: // 200, 201, and the 404 of an update of an absent id
			if err != nil {
				t.Errorf("%s: %v, want a valid body", c.Name, err)
				continue
			}
			var body ProductInput
			_ = json.Unmarshal([]byte(*c.Body), &body)
			if in != body {
				t.Errorf("%s: parsed %+v, want %+v", c.Name, in, body)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no product vector has a body")
	}
}

func TestProductRulesBeyondVectors(t *testing.T) {
	for _, c := range []struct {
		body    string
		status  int
		invalid []string
	}{
		{`{"name":"` + strings.Repeat("é", 200) + `","priceCents":0,"stock":0}`, 200, nil},
		{`{"name":"x","priceCents":1000000000,"stock":1000000}`, 200, nil},
		{`{"name":"x","priceCents":1000000001,"stock":1000000}`, 422, []string{"priceCents"}},
		{`{"name":null,"priceCents":null,"stock":null}`, 422, []string{"name", "priceCents", "stock"}},
		{`{"name":"x","priceCents":1.0,"stock":1}`, 422, []string{"priceCents"}},
		{`[]`, 422, []string{"$"}},
		{``, 400, nil},
	} {
		_, err := ParseProduct([]byte(c.body))
		if got := status(err); got != c.status {
			t.Errorf("%s: status %d (%v), want %d", c.body, got, err, c.status)
			continue
		}
		var ve *ValidationError
		if errors.As(err, &ve) && !reflect.DeepEqual(ve.Invalid, c.invalid) {
			t.Errorf("%s: invalid %q, want %q", c.body, ve.Invalid, c.invalid)
		}
	}
}

func TestCanonicalID(t *testing.T) {
	for s, want := range map[string]int64{"1": 1, "42": 42, "999999999999999999": 999999999999999999} {
		if got, ok := CanonicalID(s); !ok || got != want {
			t.Errorf("CanonicalID(%q) = %d, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "0", "007", "-1", "+1", "abc", "1.0", " 1", "1234567890123456789", "١"} {
		if got, ok := CanonicalID(s); ok {
			t.Errorf("CanonicalID(%q) = %d, want not canonical", s, got)
		}
	}
}

// The list vectors' query strings, and the rules' edges.
func TestListPage(t *testing.T) {
	v, err := LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Products {
		u, _ := url.Parse(c.Path)
		if u.Path != "/api/products" || c.Method != "GET" {
			continue
		}
		p, err := ListPage(u.Query())
		if (err != nil) != (c.Status == 400) {
			t.Errorf("%s: %+v %v, want status %d", c.Name, p, err, c.Status)
		}
		if c.Status == 200 {
			var want Page
			_ = json.Unmarshal(c.Response, &want)
			if p != want {
				t.Errorf("%s: page %+v, want %+v", c.Name, p, want)
			}
		}
	}
	for q, want := range map[string]Page{"": {20, 0}, "limit=100&offset=1000000": {100, 1000000}, "offset=5": {20, 5}, "limit=1&other=x": {1, 0}} {
		values, _ := url.ParseQuery(q)
		if got, err := ListPage(values); err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", q, got, err, want)
		}
	}
	for _, q := range []string{"limit=", "offset=", "limit=01", "offset=00", "offset=1000001", "limit=+5", "limit=1.0"} {
		values, _ := url.ParseQuery(q)
		if got, err := ListPage(values); err == nil {
			t.Errorf("%q: %+v, want an error", q, got)
		}
	}
}
