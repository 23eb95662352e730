package service

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"runner/go-nethttp/microservices"
	"runner/go-nethttp/microservices/downstream"
	"runner/go-nethttp/microservices/store"
)

// scenarioRequest sends one request and checks the contract's framing.
func scenarioRequest(t *testing.T, method, u, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("Content-Type") != "application/json" || resp.ContentLength != int64(len(out)) || !json.Valid(out) {
		t.Errorf("%s %s: Content-Type %q, Content-Length %d for %d bytes: %q", method, u, resp.Header.Get("Content-Type"), resp.ContentLength, len(out), out)
	}
	return resp.StatusCode, resp.Header, out
}

func sameJSONValue(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		t.Fatalf("not JSON: %s / %s", a, b)
	}
	return reflect.DeepEqual(x, y)
}

func jsonMember(t *testing.T, body []byte, name string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return m[name]
}

func scenarioServer(t *testing.T, cfg Config) string {
	t.Helper()
	srv := httptest.NewServer(New(cfg))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Every order vector of microservices.json through the real handler.
func TestOrderVectorsOverHTTP(t *testing.T) {
	v, err := microservices.LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	base := scenarioServer(t, Config{WorkFactor: 1})
	for _, c := range v.Orders {
		status, _, body := scenarioRequest(t, "POST", base+"/api/orders/calculate", c.Body)
		switch {
		case status != c.Status:
			t.Errorf("%s: status %d (%s), want %d", c.Name, status, body, c.Status)
		case status == 200 && !sameJSONValue(t, body, c.Response):
			t.Errorf("%s: answer\n %s\nwant\n %s", c.Name, body, c.Response)
		case status == 422 && !sameJSONValue(t, jsonMember(t, body, "invalid"), jsonMember(t, c.Response, "invalid")):
			t.Errorf("%s: %s, want invalid %s", c.Name, body, jsonMember(t, c.Response, "invalid"))
		case status == 400 && len(jsonMember(t, body, "error")) == 0:
			t.Errorf("%s: %s, want an error", c.Name, body)
		}
	}
}

func TestScenarioMethodsAndUnconfigured(t *testing.T) {
	base := scenarioServer(t, Config{WorkFactor: 1})
	for _, c := range []struct{ method, path, allow string }{
		{"GET", "/api/orders/calculate", "POST"}, {"DELETE", "/api/products/1", "GET, HEAD, PUT"},
		{"DELETE", "/api/products", "GET, HEAD, POST"}, {"POST", "/api/dashboard/42", "GET, HEAD"},
	} {
		if status, h, _ := scenarioRequest(t, c.method, base+c.path, ""); status != 405 || h.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow %q, want 405 Allow %q", c.method, c.path, status, h.Get("Allow"), c.allow)
		}
	}
	for path, want := range map[string]string{"/api/products/1": "no database configured", "/api/products": "no database configured", "/api/dashboard/42": "no downstreams configured"} {
		if status, _, body := scenarioRequest(t, "GET", base+path, ""); status != 503 || string(jsonMember(t, body, "error")) != `"`+want+`"` {
			t.Errorf("%s: %d %s, want 503 %s", path, status, body, want)
		}
	}
	for _, path := range []string{"/api/products/007", "/api/dashboard/abc"} {
		if status, _, _ := scenarioRequest(t, "GET", base+path, ""); status != 404 {
			t.Errorf("%s: %d, want 404", path, status)
		}
	}
}

// The products vectors in order on test-deps.sh's PostgreSQL, reseeded.
func TestProductVectorsOnPostgres(t *testing.T) {
	databaseURL := os.Getenv("TEST_DATABASE_URL")
	if databaseURL == "" {
		t.Skip("skipped: TEST_DATABASE_URL is not set (eval \"$(runtimes/contract/test-deps.sh start DIR)\" first)")
	}
	v, err := microservices.LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Reseed(context.Background(), databaseURL, filepath.Join("..", "..", "..", "contract", "products.sql")); err != nil {
		t.Fatal(err)
	}
	products, err := store.Open(context.Background(), databaseURL, microservices.DefaultPoolSize)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(products.Close)
	base := scenarioServer(t, Config{WorkFactor: 1, Products: products})
	for _, c := range v.Products {
		body := ""
		if c.Body != nil {
			body = *c.Body
		}
		status, _, got := scenarioRequest(t, c.Method, base+c.Path, body)
		switch {
		case status != c.Status:
			t.Fatalf("%s: %s %s: status %d (%s), want %d", c.Name, c.Method, c.Path, status, got, c.Status)
		case status == 422:
			if !sameJSONValue(t, jsonMember(t, got, "invalid"), jsonMember(t, c.Response, "invalid")) {
				t.Errorf("%s: %s, want %s", c.Name, got, c.Response)
			}
		case c.Response != nil && !sameJSONValue(t, got, c.Response):
			t.Errorf("%s: answer\n %s\nwant\n %s", c.Name, got, c.Response)
		}
	}
}

// The dashboard vectors on test-deps.sh's three stubs.
func TestDashboardVectorsOnStubs(t *testing.T) {
	profile, orders, recs := os.Getenv("TEST_PROFILE_URL"), os.Getenv("TEST_ORDERS_URL"), os.Getenv("TEST_RECOMMENDATIONS_URL")
	if profile == "" || orders == "" || recs == "" {
		t.Skip("skipped: TEST_PROFILE_URL, TEST_ORDERS_URL and TEST_RECOMMENDATIONS_URL are not set (eval \"$(runtimes/contract/test-deps.sh start DIR)\" first)")
	}
	v, err := microservices.LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	base := scenarioServer(t, Config{WorkFactor: 1, Dashboards: downstream.New(profile, orders, recs, microservices.DefaultDownstreamTimeout)})
	for _, c := range v.Dashboard.Cases {
		method := c.Method
		if method == "" {
			method = "GET"
		}
		status, _, got := scenarioRequest(t, method, base+c.Path, "")
		if status != c.Status {
			t.Errorf("%s: status %d (%s), want %d", c.Name, status, got, c.Status)
			continue
		}
		for name, want := range c.Response {
			if !sameJSONValue(t, jsonMember(t, got, name), want) {
				t.Errorf("%s: %s = %s, want %s", c.Name, name, jsonMember(t, got, name), want)
			}
		}
	}
}
