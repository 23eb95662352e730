package downstream

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"runner/go-nethttp/microservices"
)

func answer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }
}

func hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(30 * time.Second):
	}
}

func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

// client starts the three downstreams on 127.0.0.1.
func client(t *testing.T, timeout time.Duration, profile, orders, recs http.HandlerFunc) *Client {
	t.Helper()
	urls := make([]string, 3)
	for i, h := range []http.HandlerFunc{profile, orders, recs} {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		urls[i] = srv.URL
	}
	return New(urls[0], urls[1], urls[2], timeout)
}

const (
	profileBody = `{"name":"Ada"}`
	ordersBody  = `{"orders":[{"id":"O-1","totalCents":100},{"id":"O-2","totalCents":250}]}`
	recsBody    = `{"items":[{"sku":"A","score":0.5}]}`
)

func TestDashboardAggregates(t *testing.T) {
	d, err := client(t, time.Second, answer(profileBody), answer(ordersBody), answer(recsBody)).Dashboard(context.Background(), 42)
	if err != nil || d.UserID != 42 || d.OrderCount != 2 || d.TotalSpentCents != 350 || string(d.Profile) != profileBody {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestFailuresNameTheirDownstream(t *testing.T) {
	refused := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return "http://" + ln.Addr().String()
	}()
	for _, c := range []struct {
		name               string
		c                  *Client
		downstream, reason string
		within             time.Duration
	}{
		{"status", client(t, time.Second, answer(profileBody), status(500), answer(recsBody)), microservices.Orders, "status 500", 5 * time.Second},
		{"timeout", client(t, 200*time.Millisecond, hang, answer(ordersBody), answer(recsBody)), microservices.Profile, "timeout after 200 ms", 5 * time.Second},
		{"shape", client(t, time.Second, answer(profileBody), answer(ordersBody), answer(`[]`)), microservices.Recommendations, "unexpected body", 5 * time.Second},
		// the failure cancels the two hanging calls: far sooner than the 20 s deadline
		{"cancels", client(t, 20*time.Second, hang, status(503), hang), microservices.Orders, "status 503", 5 * time.Second},
		{"refused", New(refused, "http://127.0.0.1:1", "http://127.0.0.1:1", time.Second), "", "", 5 * time.Second},
	} {
		start := time.Now()
		_, err := c.c.Dashboard(context.Background(), 7)
		took := time.Since(start)
		var de *microservices.DownstreamError
		if !errors.As(err, &de) || (c.downstream != "" && de.Downstream != c.downstream) || !strings.Contains(de.Reason, c.reason) {
			t.Errorf("%s: %v, want a failure of %q saying %q", c.name, err, c.downstream, c.reason)
		}
		if took > c.within {
			t.Errorf("%s: took %v", c.name, took)
		}
	}
}
