// Command server is the Gin service of runtimes/CONTRACT.md and of its
// microservices scenarios (the 2026 study's Go side).
//
// Environment: PORT (default 8080), HOST (default 127.0.0.1), WORK_FACTOR
// (integer >= 1, default 1), LOG_REQUESTS (true/false: one Gin logger line
// per request), METRICS (true/false: Prometheus metrics on /metrics),
// DATABASE_URL, DB_POOL_SIZE (default 20), PROFILE_URL, ORDERS_URL,
// RECOMMENDATIONS_URL, DOWNSTREAM_TIMEOUT_MS (default 1000), plus the Go
// runtime's own GOMAXPROCS and GOMEMLIMIT.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"runner/go-gin/internal/service"
	"runner/go-nethttp/contract"
	"runner/go-nethttp/microservices"
	"runner/go-nethttp/microservices/downstream"
	"runner/go-nethttp/microservices/store"
)

// shutdownTimeout bounds the graceful drain on SIGTERM/SIGINT.
const shutdownTimeout = 5 * time.Second

func main() {
	cfg, err := contract.ReadSettings(os.Getenv)
	if err != nil {
		exit(2, err)
	}
	ms, err := microservices.ReadSettings(os.Getenv)
	if err != nil {
		exit(2, err)
	}
	if err := run(cfg, ms); err != nil {
		exit(1, err)
	}
}

// exit stops with the message on stderr: 2 for a bad setting, 1 otherwise.
func exit(code int, err error) {
	fmt.Fprintf(os.Stderr, "go-gin: %v\n", err)
	os.Exit(code)
}

func run(cfg contract.Settings, ms microservices.Settings) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	svc := service.Config{
		WorkFactor:  cfg.WorkFactor,
		LogRequests: cfg.LogRequests,
		Metrics:     cfg.Metrics,
		LogOutput:   os.Stderr,
	}
	if ms.DatabaseURL != "" {
		products, err := store.Open(context.Background(), ms.DatabaseURL, ms.PoolSize)
		if err != nil {
			return err
		}
		defer products.Close()
		svc.Products = products
	}
	if ms.DownstreamsConfigured() {
		svc.Dashboards = downstream.New(ms.ProfileURL, ms.OrdersURL, ms.RecommendationsURL, ms.DownstreamTimeout)
	}

	// net sets TCP_NODELAY on every TCP connection by default, and
	// http.Server keeps connections alive by default; Gin is only the
	// handler.
	srv := &http.Server{
		Handler:           service.Build(svc),
		ReadHeaderTimeout: 30 * time.Second, // no slowloris; idle keep-alive connections are not timed out
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		return err
	}

	info := service.CurrentRuntimeInfo()
	logger.Info("listening",
		slog.String("addr", ln.Addr().String()),
		slog.Int("workFactor", cfg.WorkFactor),
		slog.Bool("logRequests", cfg.LogRequests),
		slog.Bool("metrics", cfg.Metrics),
		slog.Bool("database", svc.Products != nil),
		slog.Int("dbPoolSize", ms.PoolSize),
		slog.Bool("downstreams", svc.Dashboards != nil),
		slog.Duration("downstreamTimeout", ms.DownstreamTimeout),
		slog.Int("gomaxprocs", info.Parallelism),
		slog.String("memoryLimit", info.MemoryLimit))

	err = contract.ServeUntilSignal(srv, ln, shutdownTimeout)
	logger.Info("stopped")
	return err
}
