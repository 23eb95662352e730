package service

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"runner/go-nethttp/internal/vectors"
	"runner/go-nethttp/internal/work"
)

type answer struct {
	Input       string       `json:"input"`
	Uppercase   string       `json:"uppercase"`
	Lowercase   string       `json:"lowercase"`
	Reversed    string       `json:"reversed"`
	Hash        *uint32      `json:"hash"`
	WorkFactor  int          `json:"workFactor"`
	WorkScore   *uint32      `json:"workScore"`
	Runtime     string       `json:"runtime"`
	Language    string       `json:"language"`
	LogEnabled  *bool        `json:"logEnabled"`
	RuntimeInfo *RuntimeInfo `json:"runtimeInfo"`
	Status      string       `json:"status"`
	Error       string       `json:"error"`
}

// servers holds one in-process server (real handler, ephemeral 127.0.0.1
// port) per work factor.
type servers struct {
	t  *testing.T
	mu sync.Mutex
	by map[int]*httptest.Server
}

func newServers(t *testing.T) *servers {
	s := &servers{t: t, by: map[int]*httptest.Server{}}
	t.Cleanup(func() {
		for _, srv := range s.by {
			srv.Close()
		}
	})
	return s
}

func (s *servers) url(workFactor int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	srv, ok := s.by[workFactor]
	if !ok {
		srv = httptest.NewServer(New(Config{WorkFactor: workFactor}))
		s.by[workFactor] = srv
	}
	return srv.URL
}

// do sends one request and checks the framing every answer must have.
func do(t *testing.T, method, u string) (*http.Response, answer) {
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
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, u, ct)
	}
	if len(resp.TransferEncoding) != 0 {
		t.Errorf("%s %s: Transfer-Encoding %v, want an explicit Content-Length", method, u, resp.TransferEncoding)
	}
	if cl := resp.Header.Get("Content-Length"); cl != strconv.Itoa(len(body)) && method != http.MethodHead {
		t.Errorf("%s %s: Content-Length %q for a %d-byte body", method, u, cl, len(body))
	}
	var a answer
	if method != http.MethodHead {
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatalf("%s %s: body is not JSON: %v: %.200q", method, u, err, body)
		}
	}
	return resp, a
}

func checkRuntimeInfo(t *testing.T, where string, ri *RuntimeInfo) {
	t.Helper()
	if ri == nil {
		t.Fatalf("%s: no runtimeInfo", where)
	}
	want := RuntimeInfo{
		CPUs: runtime.NumCPU(), Parallelism: runtime.GOMAXPROCS(0), ParallelismSource: "GOMAXPROCS",
		MemoryLimit: ri.MemoryLimit, ServerModel: "goroutine per connection",
		TLS: "off", Protocols: []string{"http/1.1"},
	}
	if !reflect.DeepEqual(*ri, want) || ri.MemoryLimit == "" {
		t.Errorf("%s: runtimeInfo %+v, want %+v", where, *ri, want)
	}
}

func checkWork(t *testing.T, where string, a answer, wf int, hash, score uint32) {
	t.Helper()
	if a.Hash == nil || *a.Hash != hash || a.WorkScore == nil || *a.WorkScore != score {
		t.Errorf("%s: hash %s workScore %s, want %d %d", where, u32(a.Hash), u32(a.WorkScore), hash, score)
	}
	if a.WorkFactor != wf || a.Language != "go" || a.Runtime != runtime.Version() ||
		a.LogEnabled == nil || *a.LogEnabled {
		t.Errorf("%s: workFactor %d language %q runtime %q logEnabled %v",
			where, a.WorkFactor, a.Language, a.Runtime, a.LogEnabled)
	}
	checkRuntimeInfo(t, where, a.RuntimeInfo)
}

func u32(p *uint32) string {
	if p == nil {
		return "missing"
	}
	return strconv.FormatUint(uint64(*p), 10)
}

func loadVectors(t *testing.T) *vectors.File {
	t.Helper()
	f, err := vectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGeneratedVectorsOverHTTP(t *testing.T) {
	srv := newServers(t)
	for _, v := range loadVectors(t).Generated {
		where := "/api/generated/" + strconv.Itoa(v.Size) + " wf " + strconv.Itoa(v.WorkFactor)
		resp, a := do(t, http.MethodGet, srv.url(v.WorkFactor)+"/api/generated/"+strconv.Itoa(v.Size))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", where, resp.StatusCode)
		}
		checkWork(t, where, a, v.WorkFactor, v.Hash, v.WorkScore)
		if len(a.Input) != v.InputLength || len(a.Uppercase) != v.InputLength ||
			len(a.Lowercase) != v.InputLength || len(a.Reversed) != v.InputLength {
			t.Errorf("%s: field lengths %d %d %d %d, want %d", where,
				len(a.Input), len(a.Uppercase), len(a.Lowercase), len(a.Reversed), v.InputLength)
		}
		for _, f := range []struct {
			name string
			got  string
			want *string
		}{{"input", a.Input, v.Input}, {"uppercase", a.Uppercase, v.Uppercase},
			{"lowercase", a.Lowercase, v.Lowercase}, {"reversed", a.Reversed, v.Reversed}} {
			if f.want != nil && f.got != *f.want {
				t.Errorf("%s: %s %q, want %q", where, f.name, f.got, *f.want)
			}
		}
	}
}

func TestStringVectorsOverHTTP(t *testing.T) {
	srv := newServers(t)
	for _, v := range loadVectors(t).Strings {
		where := "/api/strings/" + v.Value + " wf " + strconv.Itoa(v.WorkFactor)
		resp, a := do(t, http.MethodGet, srv.url(v.WorkFactor)+"/api/strings/"+url.PathEscape(v.Value))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", where, resp.StatusCode)
		}
		checkWork(t, where, a, v.WorkFactor, v.Hash, v.WorkScore)
		got := [4]string{a.Input, a.Uppercase, a.Lowercase, a.Reversed}
		want := [4]string{v.Input, v.Uppercase, v.Lowercase, v.Reversed}
		if got != want {
			t.Errorf("%s: %q, want %q", where, got, want)
		}
	}
}

func TestErrorVectors(t *testing.T) {
	base := newServers(t).url(1)
	for _, v := range loadVectors(t).Errors {
		method := v.Method
		if method == "" {
			method = http.MethodGet
		}
		resp, a := do(t, method, base+v.Path)
		if resp.StatusCode != v.Status {
			t.Errorf("%s %s: status %d, want %d", method, v.Path, resp.StatusCode, v.Status)
		}
		if a.Error == "" {
			t.Errorf("%s %s: no \"error\" in the body", method, v.Path)
		}
		if v.Status == http.StatusMethodNotAllowed && resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q", method, v.Path, resp.Header.Get("Allow"))
		}
	}
}

func TestGeneratedPathVectors(t *testing.T) {
	base := newServers(t).url(1)
	for _, v := range loadVectors(t).GeneratedPaths {
		resp, a := do(t, http.MethodGet, base+v.Path)
		if resp.StatusCode != v.Status {
			t.Errorf("GET %s: status %d, want %d", v.Path, resp.StatusCode, v.Status)
		}
		if v.Hash != nil && (a.Hash == nil || *a.Hash != *v.Hash) {
			t.Errorf("GET %s: hash %v, want %d", v.Path, a.Hash, *v.Hash)
		}
		if v.InputLength != 0 && len(a.Input) != v.InputLength {
			t.Errorf("GET %s: input length %d, want %d", v.Path, len(a.Input), v.InputLength)
		}
	}
}

func TestMoreBadRequests(t *testing.T) {
	base := newServers(t).url(1)
	cases := []struct {
		method, path string
		status       int
	}{
		{"GET", "/api/generated/2000000", 400},
		{"GET", "/api/generated/+5", 400},
		{"GET", "/api/generated/" + strings.Repeat("9", 4000), 400},
		{"GET", "/api/strings/%FF", 400},
		{"GET", "/api/strings/", 404},
		{"GET", "/api/generated/", 404},
		{"GET", "/api/generated/7/x", 404},
		{"GET", "/", 404},
		{"POST", "/nope", 404},
		{"PUT", "/ready", 405},
		{"POST", "/api/strings/abc", 405},
		{"OPTIONS", "/health", 405},
	}
	for _, c := range cases {
		resp, a := do(t, c.method, base+c.path)
		if resp.StatusCode != c.status || a.Error == "" {
			t.Errorf("%s %.60s: status %d error %q, want %d", c.method, c.path, resp.StatusCode, a.Error, c.status)
		}
	}
	// The service still answers normally afterwards.
	if resp, _ := do(t, "GET", base+"/api/generated/7"); resp.StatusCode != 200 {
		t.Errorf("after bad requests: status %d", resp.StatusCode)
	}
}

func TestHealthAndReady(t *testing.T) {
	base := newServers(t).url(1)
	resp, a := do(t, "GET", base+"/health")
	if resp.StatusCode != 200 || a.Status != "UP" || a.Language != "go" || a.Runtime != runtime.Version() {
		t.Errorf("/health: %d %+v", resp.StatusCode, a)
	}
	checkRuntimeInfo(t, "/health", a.RuntimeInfo)
	resp, a = do(t, "GET", base+"/ready")
	if resp.StatusCode != 200 || a.Status != "READY" {
		t.Errorf("/ready: %d %+v", resp.StatusCode, a)
	}
	resp, _ = do(t, "HEAD", base+"/api/generated/7")
	if resp.StatusCode != 200 || resp.ContentLength <= 0 {
		t.Errorf("HEAD /api/generated/7: %d, Content-Length %d", resp.StatusCode, resp.ContentLength)
	}
}

func TestLogRequests(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, nil))
	srv := httptest.NewServer(New(Config{WorkFactor: 1, LogRequests: true, Logger: logger}))
	defer srv.Close()

	resp, a := do(t, "GET", srv.URL+"/api/generated/128")
	if resp.StatusCode != 200 || a.LogEnabled == nil || !*a.LogEnabled {
		t.Fatalf("status %d logEnabled %v", resp.StatusCode, a.LogEnabled)
	}
	do(t, "GET", srv.URL+"/api/generated/abc")

	mu.Lock()
	defer mu.Unlock()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one line per request, got %q", lines)
	}
	for _, want := range []string{"path=/api/generated/128", "size=128", "status=200", "elapsed="} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("log line %q lacks %q", lines[0], want)
		}
	}
	if !strings.Contains(lines[1], "status=400") {
		t.Errorf("log line %q lacks status=400", lines[1])
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// benchHandler times the whole handler (routing, work, JSON, writing) on one path.
func benchHandler(b *testing.B, path string) {
	h := New(Config{WorkFactor: 10})
	req := httptest.NewRequest("GET", path, nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
	}
}

func BenchmarkGenerated128(b *testing.B) { benchHandler(b, "/api/generated/128") }

// The whole handler at the seed's largest payload.
func BenchmarkGenerated8192(b *testing.B) { benchHandler(b, "/api/generated/8192") }

// encoding/json alone on the same answer (four 8 KB strings): how much of
// the handler is the JSON encoder rather than the work (see README).
func BenchmarkEncode8192(b *testing.B) {
	res := work.Generated(8192, 10)
	e := encoders.Get().(*encoder)
	e.resp = workResponse{
		Input: res.Input, Uppercase: res.Uppercase, Lowercase: res.Lowercase,
		Reversed: res.Reversed, Hash: res.Hash, WorkFactor: 10, WorkScore: res.WorkScore,
	}
	b.ReportAllocs()
	for b.Loop() {
		e.buf.Reset()
		_ = e.enc.Encode(&e.resp)
	}
}
