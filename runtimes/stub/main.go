// Command stub is a downstream service for benchmarks: named routes that
// answer a fixed JSON body after a delay drawn, seeded, from a declared
// distribution, with an optional injected failure share, its own latency
// figures at GET /__stats and POST /__stats/reset, and GET /health.
// See README.md.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// routeFlags collects repeated --route values.
type routeFlags []string

func (r *routeFlags) String() string     { return strings.Join(*r, " ") }
func (r *routeFlags) Set(v string) error { *r = append(*r, v); return nil }

// Config is the parsed command line.
type Config struct {
	Host   string
	Port   int
	Seed   uint64
	Routes []*Route
}

func parseArgs(args []string, getenv func(string) string, dir string) (*Config, error) {
	fs := flag.NewFlagSet("stub", flag.ContinueOnError)
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.Int("port", -1, "TCP port (default: $PORT, else 8080; 0 = any free port)")
	seed := fs.Uint64("seed", 1, "seeds every route's delay and failure draws")
	var routes routeFlags
	fs.Var(&routes, "route", "NAME=PATH[:DELAY[:BODY[:FAIL]]] (repeatable), e.g. users=/users/{id}:uniform(5ms,20ms):fixtures/user.json")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: routes are given with --route", fs.Arg(0))
	}
	cfg := &Config{Host: *host, Port: *port, Seed: *seed}
	if cfg.Port < 0 {
		cfg.Port = 8080
		if env := getenv("PORT"); env != "" {
			p, err := strconv.Atoi(env)
			if err != nil {
				return nil, fmt.Errorf("PORT=%q is not a port number", env)
			}
			cfg.Port = p
		}
	}
	if cfg.Port > 65535 {
		return nil, fmt.Errorf("port %d is out of range 0..65535", cfg.Port)
	}
	if len(routes) == 0 {
		routes = routeFlags{"default=/:uniform(5ms,20ms)"}
	}
	seen := map[string]bool{}
	for _, text := range routes {
		r, err := ParseRoute(text, dir, cfg.Seed)
		if err != nil {
			return nil, err
		}
		if seen[r.Name] {
			return nil, fmt.Errorf("--route %s is declared twice: give each route its own name", r.Name)
		}
		seen[r.Name] = true
		cfg.Routes = append(cfg.Routes, r)
	}
	return cfg, nil
}

// Server answers the routes and keeps their figures.
type Server struct {
	routes []*Route
	stats  *Stats
}

func NewServer(routes []*Route) *Server {
	return &Server{routes: routes, stats: NewStats(routes)}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	// The request head has been read: the measured time starts here.
	start := time.Now()
	switch req.URL.Path {
	case "/health":
		writeJSON(w, http.StatusOK, []byte(`{"status":"UP"}`))
		return
	case "/__stats":
		if req.Method != http.MethodGet {
			writeJSON(w, http.StatusMethodNotAllowed, []byte(`{"error":"GET /__stats"}`))
			return
		}
		body, _ := json.Marshal(map[string]any{"routes": s.stats.Snapshot()})
		writeJSON(w, http.StatusOK, body)
		return
	case "/__stats/reset":
		if req.Method != http.MethodPost {
			writeJSON(w, http.StatusMethodNotAllowed, []byte(`{"error":"POST /__stats/reset"}`))
			return
		}
		s.stats.Reset()
		w.WriteHeader(http.StatusNoContent)
		return
	}
	for _, r := range s.routes {
		if r.Matches(req.URL.Path) {
			s.answer(w, req, r, start)
			return
		}
	}
	writeJSON(w, http.StatusNotFound, []byte(`{"error":"no route for this path"}`))
}

func (s *Server) answer(w http.ResponseWriter, req *http.Request, r *Route, start time.Time) {
	draw := r.Next()
	wait := draw.Delay
	if draw.Fail != nil && draw.Fail.Kind == FailHang {
		wait = draw.Fail.Hang
	}
	if wait > 0 {
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-req.Context().Done():
			// The client gave up (a hang past its timeout): nothing to answer.
			timer.Stop()
			s.stats.Record(r.Name, time.Since(start))
			return
		}
	}
	if draw.Fail != nil && draw.Fail.Kind == Fail500 {
		writeJSON(w, http.StatusInternalServerError, []byte(`{"error":"injected failure"}`))
	} else {
		writeJSON(w, http.StatusOK, r.Body)
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	// The response has been written: the measured time ends here.
	s.stats.Record(r.Name, time.Since(start))
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func main() {
	dir, _ := os.Getwd()
	cfg, err := parseArgs(os.Args[1:], os.Getenv, dir)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "stub:", err)
		os.Exit(2)
	}
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "stub: cannot listen on %s: %v (is the port taken?)\n", addr, err)
		os.Exit(1)
	}
	for _, r := range cfg.Routes {
		slog.Info("route", "name", r.Name, "path", r.Pattern, "delay", r.Delay.String(), "fail", r.Fail != nil)
	}
	slog.Info("listening", "addr", ln.Addr().String(), "seed", cfg.Seed)
	srv := &http.Server{Handler: NewServer(cfg.Routes)}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "stub:", err)
		os.Exit(1)
	}
}
