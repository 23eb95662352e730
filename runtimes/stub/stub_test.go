package main

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func route(t *testing.T, text string, seed uint64) *Route {
	t.Helper()
	r, err := ParseRoute(text, ".", seed)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func delays(r *Route, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = r.Next().Delay
	}
	return out
}

func TestDelaysStayWithinTheDeclaredDistribution(t *testing.T) {
	uniform := delays(route(t, "a=/a", 1), 20000) // the default: uniform(5ms,20ms)
	var sum time.Duration
	for _, d := range uniform {
		if d < 5*time.Millisecond || d > 20*time.Millisecond {
			t.Fatalf("uniform(5ms,20ms) drew %s", d)
		}
		sum += d
	}
	if mean := sum / time.Duration(len(uniform)); mean < 12*time.Millisecond || mean > 13*time.Millisecond {
		t.Fatalf("uniform(5ms,20ms) mean %s, want ~12.5ms", mean)
	}
	slices.Sort(uniform)
	if uniform[0] > 5100*time.Microsecond || uniform[len(uniform)-1] < 19900*time.Microsecond {
		t.Fatalf("uniform draws do not cover the range: %s..%s", uniform[0], uniform[len(uniform)-1])
	}
	for _, d := range delays(route(t, "b=/b:fixed(7ms)", 1), 100) {
		if d != 7*time.Millisecond {
			t.Fatalf("fixed(7ms) drew %s", d)
		}
	}
	logn := delays(route(t, "c=/c:lognormal(10ms,0.5,40ms)", 1), 20000)
	slices.Sort(logn)
	median := logn[len(logn)/2]
	if median < 9500*time.Microsecond || median > 10500*time.Microsecond {
		t.Fatalf("lognormal(10ms,0.5) median %s, want ~10ms", median)
	}
	// exp(0.5 x 2.326) = 3.20: the 99th percentile is ~32 ms.
	if p99 := logn[len(logn)*99/100]; p99 < 29*time.Millisecond || p99 > 35*time.Millisecond {
		t.Fatalf("lognormal(10ms,0.5) p99 %s, want ~32ms", p99)
	}
	if logn[len(logn)-1] > 40*time.Millisecond {
		t.Fatalf("lognormal cap 40ms exceeded: %s", logn[len(logn)-1])
	}
}

func TestTheSameSeedGivesTheSameDelaysPerRoute(t *testing.T) {
	a := delays(route(t, "users=/u/{id}", 7), 500)
	b := delays(route(t, "users=/u/{id}", 7), 500)
	if !slices.Equal(a, b) {
		t.Fatal("seed 7 gave two different sequences")
	}
	if slices.Equal(a, delays(route(t, "users=/u/{id}", 8), 500)) {
		t.Fatal("seeds 7 and 8 gave the same sequence")
	}
	if slices.Equal(a, delays(route(t, "orders=/u/{id}", 7), 500)) {
		t.Fatal("two routes share one sequence: each route must draw its own")
	}
	// Declaring a failure does not shift the delays.
	if !slices.Equal(a, delays(route(t, "users=/u/{id}:::fail(30%,500)", 7), 500)) {
		t.Fatal("a failure declaration changed the delay sequence")
	}
}

func TestRoutesMatchTheirPatternsOnly(t *testing.T) {
	r := route(t, "users=/users/{id}", 1)
	for path, want := range map[string]bool{
		"/users/42": true, "/users/abc": true, "/users": false, "/users/": false,
		"/users/1/x": false, "/orders/1": false,
	} {
		if r.Matches(path) != want {
			t.Errorf("%s matches /users/{id}: got %v", path, !want)
		}
	}
	root := route(t, "root=/", 1)
	if !root.Matches("/") || root.Matches("/x") {
		t.Error("the route / matches only /")
	}
}

func TestBadRoutesAreRefusedWithTheReason(t *testing.T) {
	for text, want := range map[string]string{
		"Users=/u":                 "NAME like",
		"u=users":                  "must start with /",
		"u=/u:uniform(20ms,5ms)":   "below the lower bound",
		"u=/u:gauss(1ms)":          "unknown distribution",
		"u=/u:fixed(ms)":           "not a duration",
		"u=/u::missing.json":       "cannot read its body",
		"u=/u:::fail(150%,500)":    "between 0% and 100%",
		"u=/u:::fail(1%,hang)":     "fail(SHARE,500)",
		"u=/u:fixed(1ms):a:b:c":    "too many",
		"u=/u:lognormal(0ms,0.5)":  "median",
		"u=/u:::fail(1%,hang(0s))": "duration > 0",
	} {
		_, err := ParseRoute(text, ".", 1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", text, err, want)
		}
	}
	dir := t.TempDir()
	os.WriteFile(dir+"/bad.json", []byte("{not json"), 0o644)
	if _, err := ParseRoute("u=/u::bad.json", dir, 1); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("invalid JSON body accepted: %v", err)
	}
	if _, err := parseArgs([]string{"--route", "a=/a", "--route", "a=/b"}, func(string) string { return "" }, "."); err == nil {
		t.Error("a route declared twice was accepted")
	}
}

func TestPortComesFromTheFlagThenPORT(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	cfg, err := parseArgs([]string{"--port", "9001"}, env("9002"), ".")
	if err != nil || cfg.Port != 9001 {
		t.Fatalf("--port: %v %+v", err, cfg)
	}
	cfg, err = parseArgs(nil, env("9002"), ".")
	if err != nil || cfg.Port != 9002 || cfg.Routes[0].Name != "default" {
		t.Fatalf("PORT: %v %+v", err, cfg)
	}
	if _, err := parseArgs(nil, env("x"), "."); err == nil {
		t.Fatal("PORT=x accepted")
	}
}

func get(t *testing.T, url string) (int, []byte, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body, resp.Header
}

func stats(t *testing.T, url string) map[string]RouteFigures {
	t.Helper()
	status, body, _ := get(t, url+"/__stats")
	if status != 200 {
		t.Fatalf("GET /__stats: %d %s", status, body)
	}
	var out struct {
		Routes map[string]RouteFigures `json:"routes"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("GET /__stats: %v: %s", err, body)
	}
	return out.Routes
}

func TestBodiesHealthAndUnknownPaths(t *testing.T) {
	srv := httptest.NewServer(NewServer([]*Route{
		route(t, "users=/users/{id}:fixed(0s):fixtures/user.json", 1),
		route(t, "plain=/plain:fixed(0s)", 1),
	}))
	defer srv.Close()
	want, _ := os.ReadFile("fixtures/user.json")
	status, body, header := get(t, srv.URL+"/users/42")
	if status != 200 || string(body) != string(want) || header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /users/42: %d %q %v", status, body, header)
	}
	if _, body, _ := get(t, srv.URL+"/plain"); string(body) != `{"route":"plain"}` {
		t.Fatalf("default body: %s", body)
	}
	if status, _, _ := get(t, srv.URL+"/health"); status != 200 {
		t.Fatalf("GET /health: %d", status)
	}
	if status, _, _ := get(t, srv.URL+"/nothing"); status != 404 {
		t.Fatalf("GET /nothing: %d", status)
	}
}

func TestStatsMeasureTheDelayAndResetZeroesThem(t *testing.T) {
	srv := httptest.NewServer(NewServer([]*Route{
		route(t, "slow=/slow:fixed(3ms)", 1),
		route(t, "idle=/idle", 1),
	}))
	defer srv.Close()
	for range 40 {
		if status, _, _ := get(t, srv.URL+"/slow"); status != 200 {
			t.Fatalf("GET /slow: %d", status)
		}
	}
	figures := stats(t, srv.URL)
	s := figures["slow"]
	if s.Count != 40 {
		t.Fatalf("count %d, want 40: %+v", s.Count, s)
	}
	// Measured inside the stub, so at least the declared 3 ms; wide upper
	// bounds: a busy host may delay a timer.
	if s.P50MS < 3 || s.MeanMS < 3 || s.P99MS < s.P50MS || s.MaxMS < s.P99MS || s.P50MS > 100 {
		t.Fatalf("figures do not hold the 3 ms delay: %+v", s)
	}
	if figures["idle"] != (RouteFigures{}) {
		t.Fatalf("a route never called has figures: %+v", figures["idle"])
	}
	resp, err := http.Post(srv.URL+"/__stats/reset", "application/json", nil)
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("POST /__stats/reset: %v %v", err, resp)
	}
	if after := stats(t, srv.URL)["slow"]; after != (RouteFigures{}) {
		t.Fatalf("after reset: %+v", after)
	}
	if status, _, _ := get(t, srv.URL+"/__stats/reset"); status != 405 {
		t.Fatalf("GET /__stats/reset: %d, want 405", status)
	}
}

func TestTheFailureShareIsDrawnSeeded(t *testing.T) {
	count := func(seed uint64) int {
		s := NewServer([]*Route{route(t, "flaky=/f:fixed(0s)::fail(20%,500)", seed)})
		failed := 0
		for range 2000 {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest("GET", "/f", nil))
			switch w.Code {
			case 500:
				failed++
			case 200:
			default:
				t.Fatalf("status %d", w.Code)
			}
		}
		return failed
	}
	failed := count(3)
	if failed < 300 || failed > 500 {
		t.Fatalf("fail(20%%,500) failed %d of 2000", failed)
	}
	if again := count(3); again != failed {
		t.Fatalf("seed 3 failed %d, then %d", failed, again)
	}
}

func TestAHangOutlastsTheCallersTimeout(t *testing.T) {
	srv := httptest.NewServer(NewServer([]*Route{route(t, "stuck=/s:fixed(0s)::fail(100%,hang(5s))", 1)}))
	defer srv.Close()
	client := http.Client{Timeout: 100 * time.Millisecond}
	started := time.Now()
	if _, err := client.Get(srv.URL + "/s"); err == nil {
		t.Fatal("a hung request answered before the client's timeout")
	}
	if elapsed := time.Since(started); elapsed > 3*time.Second {
		t.Fatalf("the client waited %s", elapsed)
	}
}

func TestHistogramQuantilesAreWithinHalfAPercent(t *testing.T) {
	var h Histogram
	r := rand.New(rand.NewPCG(1, 2))
	values := make([]float64, 10000)
	for i := range values {
		us := 1 + r.Int64N(5_000_000)
		values[i] = float64(us)
		h.Record(time.Duration(us) * time.Microsecond)
	}
	slices.Sort(values)
	for _, q := range []float64{0.5, 0.9, 0.99} {
		want := values[int(q*float64(len(values)))-1]
		got := h.Quantile(q)
		if got < want*0.995 || got > want*1.005 {
			t.Errorf("q%.2f: %f, want %f +-0.5%%", q, got, want)
		}
	}
	if h.Quantile(1) != values[len(values)-1] {
		t.Errorf("max: %f vs %f", h.Quantile(1), values[len(values)-1])
	}
}
