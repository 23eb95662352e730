package main

// When PPROF=true the server also listens on 127.0.0.1:PPROF_PORT with
// net/http/pprof's handlers and /debug/runner/gc (the runtime's recent GC
// pauses), so the runner can profile a measured window. A listener of its
// own keeps the measured mux, its routes and its connections untouched.

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"strconv"
	"time"
)

func init() {
	if os.Getenv("PPROF") != "true" {
		return
	}
	port, err := strconv.Atoi(os.Getenv("PPROF_PORT"))
	if err != nil || port <= 0 || port > 65535 {
		fmt.Fprintf(os.Stderr, "go-nethttp: PPROF=true needs PPROF_PORT in 1..65535, got %q\n", os.Getenv("PPROF_PORT"))
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-nethttp: pprof listener: %v\n", err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: pprofMux(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
}

func pprofMux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("/debug/pprof/", pprof.Index)
	m.HandleFunc("/debug/pprof/profile", pprof.Profile)
	m.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	m.HandleFunc("/debug/pprof/trace", pprof.Trace)
	m.HandleFunc("GET /debug/runner/gc", gcPauses)
	return m
}

// gcStats is what /debug/runner/gc answers: the number of completed GC
// cycles and the stop-the-world pause of each of the last (up to 256) ones,
// with the wall-clock time it ended, newest last.
type gcStats struct {
	NumGC   uint32    `json:"num_gc"`
	Pauses  []gcPause `json:"pauses"`
	NowUnix int64     `json:"now_unix_ns"`
}

type gcPause struct {
	EndUnixNs int64  `json:"end_unix_ns"`
	PauseNs   uint64 `json:"pause_ns"`
}

func gcPauses(w http.ResponseWriter, _ *http.Request) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	n := int(ms.NumGC)
	if n > len(ms.PauseNs) {
		n = len(ms.PauseNs)
	}
	pauses := make([]gcPause, 0, n)
	for i := n - 1; i >= 0; i-- { // oldest first
		k := (int(ms.NumGC) - 1 - i + len(ms.PauseNs)) % len(ms.PauseNs)
		pauses = append(pauses, gcPause{EndUnixNs: int64(ms.PauseEnd[k]), PauseNs: ms.PauseNs[k]})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(gcStats{NumGC: ms.NumGC, Pauses: pauses, NowUnix: time.Now().UnixNano()})
}
