// Command server is the Go-Kit service of runtimes/CONTRACT.md (the 2020
// study's Go side).
//
// Environment: PORT (default 8080), HOST (default 127.0.0.1), WORK_FACTOR
// (integer >= 1, default 1), LOG_REQUESTS (true/false: one go-kit/log line
// per request), METRICS (true/false: Go-Kit Prometheus metrics on /metrics),
// plus the Go runtime's own GOMAXPROCS and GOMEMLIMIT.
package main

import (
	"fmt"
	stdlog "log"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/go-kit/log"

	"runner/go-kit/internal/service"
	"runner/go-nethttp/contract"
)

// shutdownTimeout bounds the graceful drain on SIGTERM/SIGINT.
const shutdownTimeout = 5 * time.Second

func main() {
	cfg, err := contract.ReadSettings(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-kit: %v\n", err)
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintf(os.Stderr, "go-kit: %v\n", err)
		os.Exit(1)
	}
}

func run(cfg contract.Settings) error {
	logger := log.With(log.NewLogfmtLogger(log.NewSyncWriter(os.Stderr)), "ts", log.DefaultTimestampUTC)
	handler := service.Build(service.Config{
		WorkFactor:  cfg.WorkFactor,
		LogRequests: cfg.LogRequests,
		Metrics:     cfg.Metrics,
		Logger:      logger,
	})

	// net sets TCP_NODELAY on every TCP connection by default, and
	// http.Server keeps connections alive by default.
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          stdlog.New(log.NewStdlibAdapter(logger), "", 0),
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		return err
	}
	_ = logger.Log("msg", "listening", "addr", ln.Addr().String(), "workFactor", cfg.WorkFactor,
		"logRequests", cfg.LogRequests, "metrics", cfg.Metrics)

	err = contract.ServeUntilSignal(srv, ln, shutdownTimeout)
	_ = logger.Log("msg", "stopped")
	return err
}
