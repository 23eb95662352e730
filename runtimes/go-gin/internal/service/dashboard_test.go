package service

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"runner/go-nethttp/microservices"
	"runner/go-nethttp/microservices/downstream"
)

// The dashboard vectors against test-deps.sh's three stubs (998: profile
// hangs 30 s; 999: orders answers 500), with DOWNSTREAM_TIMEOUT_MS=1000.
func TestDashboardVectorsOnStubs(t *testing.T) {
	profile, orders, recs := os.Getenv("TEST_PROFILE_URL"), os.Getenv("TEST_ORDERS_URL"), os.Getenv("TEST_RECOMMENDATIONS_URL")
	if profile == "" || orders == "" || recs == "" {
		t.Skip("skipped: TEST_PROFILE_URL, TEST_ORDERS_URL and TEST_RECOMMENDATIONS_URL are not set (eval \"$(runtimes/contract/test-deps.sh start DIR)\" first)")
	}
	v, err := microservices.LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, Config{WorkFactor: 1, Dashboards: downstream.New(profile, orders, recs, microservices.DefaultDownstreamTimeout)})
	for _, c := range v.Dashboard.Cases {
		method := c.Method
		if method == "" {
			method = "GET"
		}
		start := time.Now()
		resp, got := send(t, method, base+c.Path, "")
		took := time.Since(start)
		if resp.StatusCode != c.Status {
			t.Errorf("%s: status %d (%s), want %d", c.Name, resp.StatusCode, got, c.Status)
			continue
		}
		for name, want := range c.Response {
			if !sameJSON(t, member(t, got, name), want) {
				t.Errorf("%s: %s = %s, want %s", c.Name, name, member(t, got, name), want)
			}
		}
		// The hanging profile is cut at the deadline, not waited for (30 s);
		// the bound is wide for a busy host.
		if c.Status == 502 && took > 10*time.Second {
			t.Errorf("%s: the 502 took %v", c.Name, took)
		}
	}
}

// downstreams starts three local downstreams; each route answers what its
// handler says.
func downstreams(t *testing.T, timeout time.Duration, profile, orders, recs http.HandlerFunc) *downstream.Client {
	t.Helper()
	urls := make([]string, 3)
	for i, h := range []http.HandlerFunc{profile, orders, recs} {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		urls[i] = srv.URL
	}
	return downstream.New(urls[0], urls[1], urls[2], timeout)
}

func body(s string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(s)) }
}

const (
	profileBody = `{"name":"Ada"}`
	ordersBody  = `{"orders":[{"id":"O-1","totalCents":100},{"id":"O-2","totalCents":250}]}`
	recsBody    = `{"items":[{"sku":"A","score":0.5}]}`
)

// Failures that need no stub process: each names its downstream, and a
// failure cancels the calls still running instead of waiting for them.
func TestDashboardFailures(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}
	refused := func() string { // a port nothing listens on
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr
	}()
	for _, c := range []struct {
		name                  string
		profile, orders, recs http.HandlerFunc
		timeout               time.Duration
		downstream, reason    string
	}{
		{"status", body(profileBody), func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) }, body(recsBody), time.Second, "orders", "status 503"},
		{"timeout", hang, body(ordersBody), body(recsBody), 300 * time.Millisecond, "profile", "timeout after 300 ms"},
		{"bad body", body(profileBody), body(ordersBody), body(`{"items":{}}`), time.Second, "recommendations", "unexpected body"},
		{"fraction", body(profileBody), body(`{"orders":[{"totalCents":2.5}]}`), body(recsBody), time.Second, "orders", "unexpected body"},
		// orders fails at once: the hanging calls are cancelled, so the 502
		// comes long before the 20 s deadline would cut them.
		{"cancels the others", hang, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }, hang, 20 * time.Second, "orders", "status 500"},
	} {
		client := downstreams(t, c.timeout, c.profile, c.orders, c.recs)
		base := serve(t, Config{WorkFactor: 1, Dashboards: client})
		start := time.Now()
		resp, got := send(t, "GET", base+"/api/dashboard/7", "")
		took := time.Since(start)
		if resp.StatusCode != 502 || string(member(t, got, "downstream")) != `"`+c.downstream+`"` ||
			!strings.Contains(string(member(t, got, "reason")), c.reason) || string(member(t, got, "error")) != `"downstream failed"` {
			t.Errorf("%s: %d %s, want 502 naming %s (%s)", c.name, resp.StatusCode, got, c.downstream, c.reason)
		}
		if took > 5*time.Second {
			t.Errorf("%s: took %v", c.name, took)
		}
	}
	client := downstream.New(refused, refused, refused, time.Second)
	if _, err := client.Dashboard(context.Background(), 1); err == nil {
		t.Errorf("refused connections: no error")
	}
}

// The aggregate of three local downstreams, each called once with the
// user's id; ids and methods the dashboard refuses.
func TestDashboardAggregatesOverHTTP(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	record := func(s string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			paths = append(paths, r.URL.Path)
			mu.Unlock()
			body(s)(w, r)
		}
	}
	client := downstreams(t, time.Second, record(profileBody), record(ordersBody), record(recsBody))
	base := serve(t, Config{WorkFactor: 1, Dashboards: client})
	resp, got := send(t, "GET", base+"/api/dashboard/42", "")
	want := `{"userId":42,"profile":{"name":"Ada"},"recentOrders":[{"id":"O-1","totalCents":100},{"id":"O-2","totalCents":250}],` +
		`"orderCount":2,"totalSpentCents":350,"recommendations":[{"sku":"A","score":0.5}]}`
	if resp.StatusCode != 200 || !sameJSON(t, got, []byte(want)) {
		t.Errorf("%d %s, want %s", resp.StatusCode, got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 3 || !strings.Contains(strings.Join(paths, " "), "/profile/42") {
		t.Errorf("downstream paths %v", paths)
	}
	for _, p := range []string{"/api/dashboard/042", "/api/dashboard/abc", "/api/dashboard/0"} {
		if resp, _ := send(t, "GET", base+p, ""); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
	if resp, _ := send(t, "POST", base+"/api/dashboard/42", ""); resp.StatusCode != 405 {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
	noDownstreams := serve(t, Config{WorkFactor: 1})
	if resp, got := send(t, "GET", noDownstreams+"/api/dashboard/42", ""); resp.StatusCode != 503 {
		t.Errorf("no downstreams: %d %s, want 503", resp.StatusCode, got)
	}
}
