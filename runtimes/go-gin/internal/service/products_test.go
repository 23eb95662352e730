package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"runner/go-nethttp/microservices"
	"runner/go-nethttp/microservices/store"
)

// seedFile is the products table's schema and seed.
var seedFile = filepath.Join("..", "..", "..", "contract", "products.sql")

// Every product vector, in order, through the real engine on the real pool
// against test-deps.sh's PostgreSQL freshly seeded.
func TestProductVectorsOnPostgres(t *testing.T) {
	databaseURL := os.Getenv("TEST_DATABASE_URL")
	if databaseURL == "" {
		t.Skip("skipped: TEST_DATABASE_URL is not set (eval \"$(runtimes/contract/test-deps.sh start DIR)\" first)")
	}
	v, err := microservices.LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Reseed(context.Background(), databaseURL, seedFile); err != nil {
		t.Fatal(err)
	}
	products, err := store.Open(context.Background(), databaseURL, microservices.DefaultPoolSize)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(products.Close)
	base := serve(t, Config{WorkFactor: 1, Products: products})
	for _, c := range v.Products {
		body := ""
		if c.Body != nil {
			body = *c.Body
		}
		resp, got := send(t, c.Method, base+c.Path, body)
		if resp.StatusCode != c.Status {
			t.Fatalf("%s: %s %s: status %d (%s), want %d", c.Name, c.Method, c.Path, resp.StatusCode, got, c.Status)
		}
		switch {
		case c.Status == 422:
			if !sameJSON(t, member(t, got, "invalid"), member(t, c.Response, "invalid")) {
				t.Errorf("%s: %s, want invalid %s", c.Name, got, member(t, c.Response, "invalid"))
			}
		case c.Response != nil:
			if !sameJSON(t, got, c.Response) {
				t.Errorf("%s: answer\n %s\nwant\n %s", c.Name, got, c.Response)
			}
		default:
			if len(member(t, got, "error")) == 0 {
				t.Errorf("%s: %s, want an error", c.Name, got)
			}
		}
	}
}

// A database that is down is a 503 on the product endpoints, never a hang
// or a failed start; the rest of the service answers.
func TestProductsWithTheDatabaseDown(t *testing.T) {
	// Port 1 on 127.0.0.1: nothing listens there, so connecting is refused.
	products, err := store.Open(context.Background(), "postgresql://bench:bench@127.0.0.1:1/bench?connect_timeout=1", 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(products.Close)
	base := serve(t, Config{WorkFactor: 1, Products: products})
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/api/products/1", ""}, {"GET", "/api/products", ""},
		{"POST", "/api/products", `{"name":"x","priceCents":1,"stock":1}`}, {"PUT", "/api/products/1", `{"name":"x","priceCents":1,"stock":1}`},
	} {
		resp, got := send(t, r.method, base+r.path, r.body)
		if resp.StatusCode != 503 || string(member(t, got, "error")) != `"database unavailable"` {
			t.Errorf("%s %s: %d %s, want 503 database unavailable", r.method, r.path, resp.StatusCode, got)
		}
	}
	if resp, _ := send(t, "GET", base+"/health", ""); resp.StatusCode != 200 {
		t.Errorf("/health with the database down: %d", resp.StatusCode)
	}
}

func TestProductsWithoutADatabase(t *testing.T) {
	base := serve(t, Config{WorkFactor: 1})
	resp, got := send(t, "GET", base+"/api/products/1", "")
	if resp.StatusCode != 503 || string(member(t, got, "error")) != `"no database configured"` {
		t.Errorf("no DATABASE_URL: %d %s", resp.StatusCode, got)
	}
	// The checks that need no database come first: a 404 and a 400 stay so.
	if resp, _ := send(t, "GET", base+"/api/products/007", ""); resp.StatusCode != 404 {
		t.Errorf("/api/products/007: %d, want 404", resp.StatusCode)
	}
	if resp, _ := send(t, "GET", base+"/api/products?limit=0", ""); resp.StatusCode != 400 {
		t.Errorf("limit=0: %d, want 400", resp.StatusCode)
	}
	resp, _ = send(t, "PUT", base+"/api/products/1", "")
	if resp.StatusCode != 400 {
		t.Errorf("PUT with an empty body: %d, want 400", resp.StatusCode)
	}
}
