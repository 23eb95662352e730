package service

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"runner/go-nethttp/contract"
)

type workAnswer struct {
	Input       string       `json:"input"`
	Uppercase   string       `json:"uppercase"`
	Lowercase   string       `json:"lowercase"`
	Reversed    string       `json:"reversed"`
	Hash        *uint32      `json:"hash"`
	WorkFactor  int          `json:"workFactor"`
	WorkScore   *uint32      `json:"workScore"`
	Language    string       `json:"language"`
	LogEnabled  *bool        `json:"logEnabled"`
	RuntimeInfo *RuntimeInfo `json:"runtimeInfo"`
	Status      string       `json:"status"`
	Error       string       `json:"error"`
}

func get(t *testing.T, method, u string) (int, workAnswer, []byte, string) {
	t.Helper()
	resp, body := send(t, method, u, "")
	var a workAnswer
	if method != "HEAD" && !strings.HasSuffix(u, "/metrics") {
		_ = json.Unmarshal(body, &a)
	}
	return resp.StatusCode, a, body, resp.Header.Get("Allow")
}

func TestVectorsGenerated(t *testing.T) {
	v, err := contract.LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	urls := map[int]string{}
	for _, g := range v.Generated {
		if urls[g.WorkFactor] == "" {
			urls[g.WorkFactor] = serve(t, Config{WorkFactor: g.WorkFactor})
		}
		status, a, _, _ := get(t, "GET", urls[g.WorkFactor]+"/api/generated/"+strconv.Itoa(g.Size))
		if status != 200 || a.Hash == nil || *a.Hash != g.Hash || a.WorkScore == nil || *a.WorkScore != g.WorkScore ||
			a.WorkFactor != g.WorkFactor || len(a.Input) != g.InputLength {
			t.Errorf("generated %d wf %d: status %d, hash %v score %v, want %d %d", g.Size, g.WorkFactor, status, a.Hash, a.WorkScore, g.Hash, g.WorkScore)
		}
		got := map[string]string{"input": a.Input, "uppercase": a.Uppercase, "lowercase": a.Lowercase, "reversed": a.Reversed}
		for name, want := range map[string]*string{"input": g.Input, "uppercase": g.Uppercase, "lowercase": g.Lowercase, "reversed": g.Reversed} {
			if want != nil && got[name] != *want {
				t.Errorf("generated %d: %s = %q, want %q", g.Size, name, got[name], *want)
			}
		}
	}
}

func TestVectorsStrings(t *testing.T) {
	v, err := contract.LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	urls := map[int]string{}
	for _, s := range v.Strings {
		if urls[s.WorkFactor] == "" {
			urls[s.WorkFactor] = serve(t, Config{WorkFactor: s.WorkFactor})
		}
		status, a, _, _ := get(t, "GET", urls[s.WorkFactor]+"/api/strings/"+url.PathEscape(s.Value))
		if status != 200 || a.Input != s.Input || a.Uppercase != s.Uppercase || a.Lowercase != s.Lowercase ||
			a.Reversed != s.Reversed || a.Hash == nil || *a.Hash != s.Hash || a.WorkScore == nil || *a.WorkScore != s.WorkScore {
			t.Errorf("strings %q: status %d, answer %+v, want %+v", s.Value, status, a, s)
		}
	}
}

func TestVectorsErrorsAndPaths(t *testing.T) {
	v, err := contract.LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, Config{WorkFactor: 1})
	for _, e := range v.Errors {
		method := e.Method
		if method == "" {
			method = "GET"
		}
		status, a, _, allow := get(t, method, base+e.Path)
		if status != e.Status || a.Error == "" {
			t.Errorf("%s %s: status %d error %q, want %d with an error", method, e.Path, status, a.Error, e.Status)
		}
		if e.Status == 405 && allow != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q", method, e.Path, allow)
		}
	}
	for _, p := range v.GeneratedPaths {
		status, a, _, _ := get(t, "GET", base+p.Path)
		if status != p.Status || (p.Hash != nil && (a.Hash == nil || *a.Hash != *p.Hash)) ||
			(p.InputLength != 0 && len(a.Input) != p.InputLength) {
			t.Errorf("GET %s: status %d, want %+v", p.Path, status, p)
		}
	}
}

// Gin's defaults that the contract overrides: no redirect for a trailing
// slash, a segment decoded after the path is split, HEAD as GET.
func TestGinDefaultsOverridden(t *testing.T) {
	base := serve(t, Config{WorkFactor: 1})
	if status, a, _, _ := get(t, "GET", base+"/health/"); status != 404 || a.Error != "not found" {
		t.Errorf("/health/: %d %q, want a JSON 404", status, a.Error)
	}
	if status, a, _, _ := get(t, "GET", base+"/api/strings/a%2Fb"); status != 200 || a.Input != "a/b" {
		t.Errorf("/api/strings/a%%2Fb: %d %q, want the value a/b", status, a.Input)
	}
	for _, p := range []string{"/health", "/ready", "/api/generated/7", "/api/strings/x"} {
		if status, _, _, _ := get(t, "HEAD", base+p); status != 200 {
			t.Errorf("HEAD %s: %d", p, status)
		}
	}
}

func TestHealthAndReady(t *testing.T) {
	base := serve(t, Config{WorkFactor: 3})
	status, a, _, _ := get(t, "GET", base+"/health")
	if status != 200 || a.Status != "UP" || a.Language != "go" || a.RuntimeInfo == nil ||
		a.RuntimeInfo.CPUs < 1 || a.RuntimeInfo.ParallelismSource != "GOMAXPROCS" || a.RuntimeInfo.ServerModel != serverModel {
		t.Errorf("/health: %d %+v", status, a)
	}
	if status, a, _, _ = get(t, "GET", base+"/ready"); status != 200 || a.Status != "READY" {
		t.Errorf("/ready: %d %+v", status, a)
	}
}

// lockedBuffer is a log destination safe for concurrent handlers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// requestsSent is a mix of good, bad, unknown and wrong-method requests,
// old endpoints and new; every one must be logged once and counted once.
var requestsSent = []struct{ method, path, body string }{
	{"GET", "/api/generated/7", ""}, {"GET", "/api/generated/2048", ""}, {"GET", "/api/strings/hello", ""},
	{"GET", "/api/generated/0", ""}, {"GET", "/nope", ""}, {"GET", "/health", ""}, {"GET", "/ready", ""},
	{"DELETE", "/health", ""}, {"POST", "/api/orders/calculate", `{"orderId":"A","customer":{"id":"C","region":"EU"},"items":[{"sku":"A","quantity":1,"unitPriceCents":1}]}`},
	{"POST", "/api/orders/calculate", `{`}, {"GET", "/api/products/1", ""},
}

func TestLogRequestsWritesOneLinePerRequest(t *testing.T) {
	var out lockedBuffer
	base := serve(t, Config{WorkFactor: 1, LogRequests: true, LogOutput: &out})
	for _, r := range requestsSent {
		send(t, r.method, base+r.path, r.body)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(requestsSent) {
		t.Fatalf("%d log lines for %d requests:\n%s", len(lines), len(requestsSent), out.String())
	}
	for i, r := range requestsSent {
		if !strings.Contains(lines[i], "method="+r.method) || !strings.Contains(lines[i], `path="`+r.path+`"`) || !strings.Contains(lines[i], "elapsed=") {
			t.Errorf("line %d %q: want method=%s path=%q and elapsed=", i, lines[i], r.method, r.path)
		}
	}
	if !strings.Contains(lines[1], "size=2048") || !strings.Contains(lines[3], "status=400") || !strings.Contains(lines[7], "status=405") {
		t.Errorf("size or status missing: %q / %q / %q", lines[1], lines[3], lines[7])
	}
	_, a, _, _ := get(t, "GET", base+"/api/generated/7")
	if a.LogEnabled == nil || !*a.LogEnabled {
		t.Errorf("logEnabled = %v, want true", a.LogEnabled)
	}
}

func TestLogRequestsOffWritesNothing(t *testing.T) {
	var out lockedBuffer
	base := serve(t, Config{WorkFactor: 1, LogRequests: false, LogOutput: &out})
	for _, r := range requestsSent {
		send(t, r.method, base+r.path, r.body)
	}
	if s := out.String(); s != "" {
		t.Errorf("logged with LOG_REQUESTS=false: %q", s)
	}
}

var countLine = regexp.MustCompile(`(?m)^http_requests_total\{route="([^"]+)",status="(\d+)"\} (\d+)$`)

func TestMetricsCountEveryRequest(t *testing.T) {
	base := serve(t, Config{WorkFactor: 1, Metrics: true})
	const rounds = 3
	for i := 0; i < rounds; i++ {
		for _, r := range requestsSent {
			send(t, r.method, base+r.path, r.body)
		}
	}
	_, _, body, _ := get(t, "GET", base+"/metrics")
	total := 0
	byRoute := map[string]int{}
	for _, m := range countLine.FindAllStringSubmatch(string(body), -1) {
		n, _ := strconv.Atoi(m[3])
		total += n
		byRoute[m[1]+" "+m[2]] += n
	}
	if total != rounds*len(requestsSent) {
		t.Fatalf("/metrics counts %d requests, sent %d:\n%s", total, rounds*len(requestsSent), body)
	}
	if byRoute["/api/generated/:size 200"] != 2*rounds || byRoute["none 404"] != rounds || byRoute["none 405"] != rounds ||
		byRoute["/api/orders/calculate 400"] != rounds || byRoute["/api/products/:id 503"] != rounds {
		t.Errorf("per route: %v", byRoute)
	}
	if !strings.Contains(string(body), "http_request_duration_seconds_count") {
		t.Errorf("no latency histogram in /metrics")
	}
}

func TestMetricsOffHasNoEndpoint(t *testing.T) {
	base := serve(t, Config{WorkFactor: 1})
	if status, _, _, _ := get(t, "GET", base+"/metrics"); status != 404 {
		t.Errorf("/metrics with METRICS=false: %d, want 404", status)
	}
}
