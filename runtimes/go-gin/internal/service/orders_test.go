package service

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"runner/go-nethttp/microservices"
)

// Every order vector through the real engine: status, the whole answer on
// a 200, the whole `invalid` list on a 422, an `error` on a 400.
func TestOrderVectorsOverHTTP(t *testing.T) {
	v, err := microservices.LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, Config{WorkFactor: 1})
	for _, c := range v.Orders {
		resp, body := send(t, "POST", base+"/api/orders/calculate", c.Body)
		if resp.StatusCode != c.Status {
			t.Errorf("%s: status %d (%s), want %d", c.Name, resp.StatusCode, body, c.Status)
			continue
		}
		switch c.Status {
		case 200:
			if !sameJSON(t, body, c.Response) {
				t.Errorf("%s: answer\n %s\nwant\n %s", c.Name, body, c.Response)
			}
		case 422:
			var got, want struct {
				Error   string            `json:"error"`
				Invalid []string          `json:"invalid"`
				Details map[string]string `json:"details"`
			}
			_ = json.Unmarshal(body, &got)
			_ = json.Unmarshal(c.Response, &want)
			if got.Error != "validation failed" || !reflect.DeepEqual(got.Invalid, want.Invalid) || len(got.Details) != len(got.Invalid) {
				t.Errorf("%s: %s, want invalid %q", c.Name, body, want.Invalid)
			}
		case 400:
			var e struct{ Error string }
			_ = json.Unmarshal(body, &e)
			if e.Error == "" {
				t.Errorf("%s: %s, want an error", c.Name, body)
			}
		}
	}
}

func TestOrderMethodsAndLimits(t *testing.T) {
	base := serve(t, Config{WorkFactor: 1})
	resp, _ := send(t, "GET", base+"/api/orders/calculate", "")
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET /api/orders/calculate: %d Allow %q, want 405 Allow POST", resp.StatusCode, resp.Header.Get("Allow"))
	}
	resp, body := send(t, "POST", base+"/api/orders/calculate", `{"orderId":"`+strings.Repeat("x", maxBodyBytes)+`"}`)
	if resp.StatusCode != 413 {
		t.Errorf("a body over %d bytes: %d %s, want 413", maxBodyBytes, resp.StatusCode, body)
	}
}
