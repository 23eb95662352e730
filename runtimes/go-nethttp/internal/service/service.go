// Package service is the HTTP side of runtimes/CONTRACT.md: routes, JSON
// answers, errors and optional per-request logging, on net/http's ServeMux.
package service

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"runner/go-nethttp/contract"
	"runner/go-nethttp/internal/users"
	"runner/go-nethttp/internal/work"
)

const (
	language    = "go"
	serverModel = "goroutine per connection"
)

// Config is the service's configuration, read from the environment by main.
type Config struct {
	WorkFactor  int          // >= 1
	LogRequests bool         // one log line per request
	Metrics     bool         // count and time every request, serve GET /metrics
	Logger      *slog.Logger // used when LogRequests; nil means slog.Default()
	// The microservices scenarios (microservices.go): Products is nil
	// without DATABASE_URL and Dashboards without the downstream URLs, and
	// the endpoints then answer 503.
	Products   ProductStore
	Dashboards Dashboards
	// Transport is how main serves PORT (TLS, h2c or plain), reported in
	// runtimeInfo's "tls" and "protocols".
	Transport contract.Transport
}

// RuntimeInfo is the "runtimeInfo" object of /health and the work answers.
type RuntimeInfo = contract.RuntimeInfo

// CurrentRuntimeInfo reads the runtime's view of CPUs, GOMAXPROCS and the
// soft memory limit, with this service's server model.
func CurrentRuntimeInfo() *RuntimeInfo { return contract.CurrentRuntimeInfo(serverModel) }

type healthResponse struct {
	Status      string       `json:"status"`
	Language    string       `json:"language"`
	Runtime     string       `json:"runtime"`
	RuntimeInfo *RuntimeInfo `json:"runtimeInfo"`
}

type workResponse struct {
	Input       string       `json:"input"`
	Uppercase   string       `json:"uppercase"`
	Lowercase   string       `json:"lowercase"`
	Reversed    string       `json:"reversed"`
	Hash        uint32       `json:"hash"`
	WorkFactor  int          `json:"workFactor"`
	WorkScore   uint32       `json:"workScore"`
	Runtime     string       `json:"runtime"`
	Language    string       `json:"language"`
	LogEnabled  bool         `json:"logEnabled"`
	RuntimeInfo *RuntimeInfo `json:"runtimeInfo"`
}

// Fixed answers, encoded once.
var (
	readyBody      = []byte(`{"status":"READY"}`)
	badSizeBody    = errorBody(work.ErrSize.Error())
	badValueBody   = errorBody("value must be valid UTF-8")
	notFoundBody   = errorBody("not found")
	notAllowedBody = errorBody("method not allowed")

	// Shared, never mutated header values (saves an allocation and the
	// key canonicalisation of Header.Set per request).
	contentTypeJSON = []string{"application/json"}
	allowGet        = []string{"GET, HEAD"}
)

func errorBody(msg string) []byte {
	b, err := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	if err != nil {
		panic(err)
	}
	return b
}

// encoder is a pooled response buffer with its JSON encoder.
type encoder struct {
	buf  bytes.Buffer
	enc  *json.Encoder
	resp workResponse
}

// maxPooledBuffer: buffers grown beyond this (huge payloads) are not kept.
const maxPooledBuffer = 64 << 10

var encoders = sync.Pool{New: func() any {
	e := &encoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// Service serves the contract's endpoints.
type Service struct {
	workFactor int
	logOn      bool
	log        *slog.Logger
	version    string
	info       atomic.Pointer[RuntimeInfo] // refreshed by /health
	mux        *http.ServeMux
	users      *users.Store // the users API's store (users.go)
	handler    http.Handler // mux, wrapped in the request metrics with METRICS=true (metrics.go)
	products   ProductStore // the microservices scenarios (microservices.go)
	dashboards Dashboards
	transport  contract.Transport
}

// New returns the service's handler.
func New(cfg Config) *Service {
	if cfg.WorkFactor < 1 {
		cfg.WorkFactor = 1
	}
	s := &Service{
		workFactor: cfg.WorkFactor,
		logOn:      cfg.LogRequests,
		log:        cfg.Logger,
		version:    runtime.Version(),
		mux:        http.NewServeMux(),
		products:   cfg.Products,
		dashboards: cfg.Dashboards,
		transport:  cfg.Transport,
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.info.Store(s.runtimeInfo())

	m := s.mux
	// A "GET" pattern also matches HEAD. The method-less twin of each route
	// is less specific, so it only sees the other methods: JSON 405.
	// "/" catches every other path: JSON 404.
	m.HandleFunc("GET /health", s.health)
	m.HandleFunc("GET /ready", s.ready)
	m.HandleFunc("GET /api/generated/{size}", s.generated)
	m.HandleFunc("GET /api/strings/{value}", s.strings)
	for _, p := range []string{"/health", "/ready", "/api/generated/{size}", "/api/strings/{value}"} {
		m.HandleFunc(p, s.methodNotAllowed)
	}
	s.registerUsers(m)
	s.registerMicroservices(m)
	m.HandleFunc("/", s.notFound)
	s.handler = m
	if cfg.Metrics {
		metrics := newRequestMetrics()
		m.Handle(metricsPattern, metrics.handler())
		s.handler = metrics.wrap(m)
	}
	return s
}

// runtimeInfo is CurrentRuntimeInfo with this server's TLS and protocols.
func (s *Service) runtimeInfo() *RuntimeInfo {
	info := CurrentRuntimeInfo()
	s.transport.Describe(info)
	return info
}

// ServeHTTP implements http.Handler.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

func (s *Service) health(w http.ResponseWriter, r *http.Request) {
	start := s.now()
	info := s.runtimeInfo()
	s.info.Store(info)
	e := encoders.Get().(*encoder)
	_ = e.enc.Encode(&healthResponse{Status: "UP", Language: language, Runtime: s.version, RuntimeInfo: info})
	s.writeEncoded(w, e)
	s.logRequest(r, http.StatusOK, 0, start)
}

func (s *Service) ready(w http.ResponseWriter, r *http.Request) {
	start := s.now()
	writeJSON(w, http.StatusOK, readyBody)
	s.logRequest(r, http.StatusOK, 0, start)
}

func (s *Service) generated(w http.ResponseWriter, r *http.Request) {
	start := s.now()
	size, err := work.ParseSize(r.PathValue("size"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, badSizeBody)
		s.logRequest(r, http.StatusBadRequest, 0, start)
		return
	}
	s.answer(w, work.Generated(size, s.workFactor))
	s.logRequest(r, http.StatusOK, size, start)
}

func (s *Service) strings(w http.ResponseWriter, r *http.Request) {
	start := s.now()
	value := r.PathValue("value") // percent-decoded by the mux
	if !utf8.ValidString(value) {
		writeJSON(w, http.StatusBadRequest, badValueBody)
		s.logRequest(r, http.StatusBadRequest, len(value), start)
		return
	}
	s.answer(w, work.Strings(value, s.workFactor))
	s.logRequest(r, http.StatusOK, len(value), start)
}

func (s *Service) answer(w http.ResponseWriter, res work.Result) {
	e := encoders.Get().(*encoder)
	e.resp = workResponse{
		Input:       res.Input,
		Uppercase:   res.Uppercase,
		Lowercase:   res.Lowercase,
		Reversed:    res.Reversed,
		Hash:        res.Hash,
		WorkFactor:  s.workFactor,
		WorkScore:   res.WorkScore,
		Runtime:     s.version,
		Language:    language,
		LogEnabled:  s.logOn,
		RuntimeInfo: s.info.Load(),
	}
	_ = e.enc.Encode(&e.resp) // cannot fail: strings, integers, a bool
	e.resp = workResponse{}   // do not keep the payload alive in the pool
	s.writeEncoded(w, e)
}

// writeEncoded writes e's buffer (minus the Encoder's trailing newline) as a
// 200 answer and returns e to the pool.
func (s *Service) writeEncoded(w http.ResponseWriter, e *encoder) {
	b := e.buf.Bytes()
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	writeJSON(w, http.StatusOK, b)
	e.buf.Reset()
	if e.buf.Cap() <= maxPooledBuffer {
		encoders.Put(e)
	}
}

func (s *Service) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	start := s.now()
	w.Header()["Allow"] = allowGet
	writeJSON(w, http.StatusMethodNotAllowed, notAllowedBody)
	s.logRequest(r, http.StatusMethodNotAllowed, 0, start)
}

func (s *Service) notFound(w http.ResponseWriter, r *http.Request) {
	start := s.now()
	writeJSON(w, http.StatusNotFound, notFoundBody)
	s.logRequest(r, http.StatusNotFound, 0, start)
}

// writeJSON writes a complete JSON answer with an explicit Content-Length.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, _ = w.Write(body) // a write error means the client went away
}

// now reads the clock only when requests are logged.
func (s *Service) now() time.Time {
	if !s.logOn {
		return time.Time{}
	}
	return time.Now()
}

func (s *Service) logRequest(r *http.Request, status, size int, start time.Time) {
	if !s.logOn {
		return
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
		slog.Int("size", size),
		slog.Duration("elapsed", time.Since(start)),
	)
}
