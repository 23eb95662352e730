package service

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
)

// requestsSent mixes good, bad and unknown requests: each must be counted once.
var metricsMix = []string{"/api/generated/7", "/api/generated/2048", "/api/strings/hello", "/api/generated/0", "/nope", "/health", "/ready"}

var countLine = regexp.MustCompile(`(?m)^http_requests_total\{route="([^"]+)",status="(\d+)"\} (\d+)$`)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func counts(t *testing.T, base string) map[string]int {
	t.Helper()
	status, page := get(t, base+"/metrics")
	if status != 200 {
		t.Fatalf("/metrics: %d %s", status, page)
	}
	by := map[string]int{}
	for _, m := range countLine.FindAllStringSubmatch(page, -1) {
		n, _ := strconv.Atoi(m[3])
		by[m[1]+" "+m[2]] += n
	}
	return by
}

func TestMetricsCountEveryRequestOnce(t *testing.T) {
	srv := httptest.NewServer(New(Config{WorkFactor: 1, Metrics: true}))
	defer srv.Close()
	const rounds = 3
	for i := 0; i < rounds; i++ {
		for _, p := range metricsMix {
			get(t, srv.URL+p)
		}
	}
	by := counts(t, srv.URL)
	total := 0
	for _, n := range by {
		total += n
	}
	if total != rounds*len(metricsMix) {
		t.Fatalf("counted %d requests, sent %d: %v", total, rounds*len(metricsMix), by)
	}
	if by["GET /api/generated/{size} 200"] != 2*rounds || by["GET /api/generated/{size} 400"] != rounds || by["none 404"] != rounds {
		t.Errorf("per route: %v", by)
	}
	if again := counts(t, srv.URL); len(again) != len(by) || again["none 404"] != rounds {
		t.Errorf("reading /metrics was counted: %v", again)
	}
}

func TestWithoutMetricsTheMetricsPathIsNotFound(t *testing.T) {
	srv := httptest.NewServer(New(Config{WorkFactor: 1}))
	defer srv.Close()
	if status, body := get(t, srv.URL+"/metrics"); status != 404 || body != `{"error":"not found"}` {
		t.Errorf("/metrics without METRICS: %d %s", status, body)
	}
}
