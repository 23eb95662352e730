package microservices

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// status is the HTTP status the contract gives an outcome.
func status(err error) int {
	var m *MalformedError
	var v *ValidationError
	switch {
	case err == nil:
		return 200
	case errors.As(err, &m):
		return 400
	case errors.As(err, &v):
		return 422
	}
	return 500
}

// sameJSON says whether two JSON texts are the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func TestOrderVectors(t *testing.T) {
	v, err := LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Orders {
		t.Run(c.Name, func(t *testing.T) {
			priced, err := CalculateOrder([]byte(c.Body))
			if got := status(err); got != c.Status {
				t.Fatalf("status %d (%v), want %d", got, err, c.Status)
			}
			switch c.Status {
			case 200:
				got, _ := json.Marshal(priced)
				if !sameJSON(t, got, c.Response) {
					t.Errorf("answer\n %s\nwant\n %s", got, c.Response)
				}
			case 422:
				var want struct{ Invalid []string }
				_ = json.Unmarshal(c.Response, &want)
				var ve *ValidationError
				errors.As(err, &ve)
				if !reflect.DeepEqual(ve.Invalid, want.Invalid) {
					t.Errorf("invalid %q, want %q", ve.Invalid, want.Invalid)
				}
				for _, p := range ve.Invalid {
					if ve.Details[p] == "" {
						t.Errorf("no detail for %s", p)
					}
				}
			}
		})
	}
}

// Cases the vectors do not pin but the contract's rules decide.
func TestOrderRulesBeyondVectors(t *testing.T) {
	const item = `{"sku":"A","quantity":1,"unitPriceCents":1}`
	for _, c := range []struct {
		name, body string
		status     int
		invalid    []string
	}{
		{"names match exactly", `{"OrderId":"A","customer":{"id":"C","region":"EU"},"items":[` + item + `]}`, 422, []string{"orderId"}},
		{"trailing data", `{"orderId":"A","customer":{"id":"C","region":"EU"},"items":[` + item + `]} {}`, 400, nil},
		{"quantity with exponent", `{"orderId":"A","customer":{"id":"C","region":"EU"},"items":[{"sku":"A","quantity":1e1,"unitPriceCents":1}]}`, 422, []string{"items[0].quantity"}},
		{"price beyond int64 is out of range", `{"orderId":"A","customer":{"id":"C","region":"EU"},"items":[{"sku":"A","quantity":1,"unitPriceCents":99999999999999999999}]}`, 422, []string{"items[0].unitPriceCents"}},
		{"id with a newline", `{"orderId":"A\n","customer":{"id":"C","region":"EU"},"items":[` + item + `]}`, 422, []string{"orderId"}},
		{"items[10] sorts before items[2]", `{"orderId":"A","customer":{"id":"C","region":"EU"},"items":[` +
			item + `,` + item + `,{"sku":"a","quantity":1,"unitPriceCents":1},` + item + `,` + item + `,` + item + `,` + item + `,` + item + `,` + item + `,` + item +
			`,{"sku":"A","quantity":0,"unitPriceCents":1}]}`, 422, []string{"items[10].quantity", "items[2].sku"}},
		{"null discount code is no code", `{"orderId":"A","customer":{"id":"C","region":"EU"},"items":[{"sku":"A","quantity":1,"unitPriceCents":1,"discountCode":null}]}`, 200, nil},
		{"discount code of the wrong type", `{"orderId":"A","customer":{"id":"C","region":"EU"},"items":[{"sku":"A","quantity":1,"unitPriceCents":1,"discountCode":10}]}`, 422, []string{"items[0].discountCode"}},
		{"a type error is reported alone", `{"orderId":"","customer":{"id":"C","region":7},"items":[` + item + `]}`, 422, []string{"customer.region"}},
	} {
		_, err := CalculateOrder([]byte(c.body))
		if got := status(err); got != c.status {
			t.Errorf("%s: status %d (%v), want %d", c.name, got, err, c.status)
			continue
		}
		var ve *ValidationError
		if errors.As(err, &ve) && !reflect.DeepEqual(ve.Invalid, c.invalid) {
			t.Errorf("%s: invalid %q, want %q", c.name, ve.Invalid, c.invalid)
		}
	}
}

func TestShareRoundsHalfUp(t *testing.T) {
	for _, c := range []struct{ a, n, d, want int64 }{
		{5, 10, 100, 1}, {4, 10, 100, 0}, {1, 725, 10000, 0}, {7, 725, 10000, 1}, {0, 25, 100, 0},
		{1_000_000_000_000, 2000, 10000, 200_000_000_000},
	} {
		if got := share(c.a, c.n, c.d); got != c.want {
			t.Errorf("share(%d, %d, %d) = %d, want %d", c.a, c.n, c.d, got, c.want)
		}
	}
}
