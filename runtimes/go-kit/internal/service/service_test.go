package service

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-kit/log"

	"runner/go-nethttp/contract"
)

type answer struct {
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

// serve starts the real handler on an ephemeral 127.0.0.1 port.
func serve(t *testing.T, cfg Config) string {
	t.Helper()
	srv := httptest.NewServer(Build(cfg))
	t.Cleanup(srv.Close)
	return srv.URL
}

// do sends one request and checks the framing every answer must have: JSON
// with an explicit Content-Length.
func do(t *testing.T, method, u string) (*http.Response, answer, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var a answer
	if strings.HasSuffix(req.URL.Path, "/metrics") && resp.StatusCode == 200 {
		return resp, a, body // Prometheus text format
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, u, ct)
	}
	if method != http.MethodHead {
		if resp.ContentLength != int64(len(body)) {
			t.Errorf("%s %s: Content-Length %d, body %d bytes (chunked: %v)", method, u, resp.ContentLength, len(body), resp.TransferEncoding)
		}
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatalf("%s %s: not JSON: %v: %q", method, u, err, body)
		}
	}
	return resp, a, body
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
		resp, a, _ := do(t, "GET", urls[g.WorkFactor]+"/api/generated/"+strconv.Itoa(g.Size))
		if resp.StatusCode != 200 || a.Hash == nil || *a.Hash != g.Hash || a.WorkScore == nil || *a.WorkScore != g.WorkScore ||
			a.WorkFactor != g.WorkFactor || len(a.Input) != g.InputLength {
			t.Errorf("generated %d wf %d: status %d, answer %+v, want hash %d score %d", g.Size, g.WorkFactor, resp.StatusCode, a, g.Hash, g.WorkScore)
		}
		for name, want := range map[string]*string{"input": g.Input, "uppercase": g.Uppercase, "lowercase": g.Lowercase, "reversed": g.Reversed} {
			got := map[string]string{"input": a.Input, "uppercase": a.Uppercase, "lowercase": a.Lowercase, "reversed": a.Reversed}[name]
			if want != nil && got != *want {
				t.Errorf("generated %d: %s = %q, want %q", g.Size, name, got, *want)
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
		resp, a, _ := do(t, "GET", urls[s.WorkFactor]+"/api/strings/"+url.PathEscape(s.Value))
		if resp.StatusCode != 200 || a.Input != s.Input || a.Uppercase != s.Uppercase || a.Lowercase != s.Lowercase ||
			a.Reversed != s.Reversed || a.Hash == nil || *a.Hash != s.Hash || a.WorkScore == nil || *a.WorkScore != s.WorkScore {
			t.Errorf("strings %q: status %d, answer %+v, want %+v", s.Value, resp.StatusCode, a, s)
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
		resp, a, _ := do(t, method, base+e.Path)
		if resp.StatusCode != e.Status || a.Error == "" {
			t.Errorf("%s %s: status %d error %q, want %d with an error", method, e.Path, resp.StatusCode, a.Error, e.Status)
		}
		if e.Status == 405 && resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q", method, e.Path, resp.Header.Get("Allow"))
		}
	}
	for _, p := range v.GeneratedPaths {
		resp, a, _ := do(t, "GET", base+p.Path)
		if resp.StatusCode != p.Status || (p.Hash != nil && (a.Hash == nil || *a.Hash != *p.Hash)) ||
			(p.InputLength != 0 && len(a.Input) != p.InputLength) {
			t.Errorf("GET %s: status %d answer %+v, want %+v", p.Path, resp.StatusCode, a, p)
		}
	}
}

func TestHealthAndReady(t *testing.T) {
	base := serve(t, Config{WorkFactor: 3})
	resp, a, _ := do(t, "GET", base+"/health")
	if resp.StatusCode != 200 || a.Status != "UP" || a.Language != "go" || a.RuntimeInfo == nil ||
		a.RuntimeInfo.CPUs < 1 || a.RuntimeInfo.ParallelismSource != "GOMAXPROCS" {
		t.Errorf("/health: %d %+v", resp.StatusCode, a)
	}
	resp, a, _ = do(t, "GET", base+"/ready")
	if resp.StatusCode != 200 || a.Status != "READY" {
		t.Errorf("/ready: %d %+v", resp.StatusCode, a)
	}
	if resp, _, _ := do(t, "HEAD", base+"/health"); resp.StatusCode != 200 {
		t.Errorf("HEAD /health: %d", resp.StatusCode)
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

func (b *lockedBuffer) lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Split(strings.TrimSuffix(b.buf.String(), "\n"), "\n")
}

// requestsSent is a mix of good, bad and unknown requests; every one must be
// logged once and counted once.
var requestsSent = []string{"/api/generated/7", "/api/generated/2048", "/api/strings/hello", "/api/generated/0", "/nope", "/health", "/ready"}

func TestLogRequestsWritesOneLinePerRequest(t *testing.T) {
	var out lockedBuffer
	base := serve(t, Config{WorkFactor: 1, LogRequests: true, Logger: log.NewLogfmtLogger(&out)})
	for _, p := range requestsSent {
		do(t, "GET", base+p)
	}
	lines := out.lines()
	if len(lines) != len(requestsSent) {
		t.Fatalf("%d log lines for %d requests:\n%s", len(lines), len(requestsSent), strings.Join(lines, "\n"))
	}
	for i, p := range requestsSent {
		if !strings.Contains(lines[i], "path="+p) || !strings.Contains(lines[i], "took=") {
			t.Errorf("line %d %q: want path=%s and took=", i, lines[i], p)
		}
	}
	if !strings.Contains(lines[1], "size=2048") || !strings.Contains(lines[3], `err="size must be`) {
		t.Errorf("size or error missing: %q / %q", lines[1], lines[3])
	}
	_, a, _ := do(t, "GET", base+"/api/generated/7")
	if a.LogEnabled == nil || !*a.LogEnabled {
		t.Errorf("logEnabled = %v, want true", a.LogEnabled)
	}
}

func TestLogRequestsOffWritesNothing(t *testing.T) {
	var out lockedBuffer
	base := serve(t, Config{WorkFactor: 1, LogRequests: false, Logger: log.NewLogfmtLogger(&out)})
	for _, p := range requestsSent {
		do(t, "GET", base+p)
	}
	if s := out.buf.String(); s != "" {
		t.Errorf("logged with LOG_REQUESTS=false: %q", s)
	}
}

var countLine = regexp.MustCompile(`(?m)^http_requests_total\{endpoint="([a-z_]+)",error="(true|false)"\} (\d+)$`)

func TestMetricsCountEveryRequest(t *testing.T) {
	base := serve(t, Config{WorkFactor: 1, Metrics: true})
	const rounds = 5
	for i := 0; i < rounds; i++ {
		for _, p := range requestsSent {
			do(t, "GET", base+p)
		}
	}
	_, _, body := do(t, "GET", base+"/metrics")
	total := 0
	byEndpoint := map[string]int{}
	for _, m := range countLine.FindAllStringSubmatch(string(body), -1) {
		n, _ := strconv.Atoi(m[3])
		total += n
		byEndpoint[m[1]+"/"+m[2]] += n
	}
	if total != rounds*len(requestsSent) {
		t.Fatalf("/metrics counts %d requests, sent %d:\n%s", total, rounds*len(requestsSent), body)
	}
	if byEndpoint["generated/true"] != rounds || byEndpoint["not_found/true"] != rounds || byEndpoint["generated/false"] != 2*rounds {
		t.Errorf("per endpoint: %v", byEndpoint)
	}
	if !strings.Contains(string(body), "http_request_duration_seconds_count") {
		t.Errorf("no latency histogram in /metrics")
	}
}

func TestMetricsOffHasNoEndpoint(t *testing.T) {
	base := serve(t, Config{WorkFactor: 1})
	resp, _, _ := do(t, "GET", base+"/metrics")
	if resp.StatusCode != 404 {
		t.Errorf("/metrics with METRICS=false: %d, want 404", resp.StatusCode)
	}
}
