// Command server is the Go net/http service of runtimes/CONTRACT.md.
//
// Environment: PORT (default 8080), HOST (default 127.0.0.1), WORK_FACTOR
// (integer >= 1, default 1), LOG_REQUESTS (true/false, default false), the
// microservices scenarios' DATABASE_URL, DB_POOL_SIZE, PROFILE_URL,
// ORDERS_URL, RECOMMENDATIONS_URL and DOWNSTREAM_TIMEOUT_MS, TLS_CERT_FILE,
// TLS_KEY_FILE and HTTP2 (runtimes/CONTRACT.md, "TLS and HTTP/2"), plus the
// Go runtime's own GOMAXPROCS and GOMEMLIMIT.
package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"runner/go-nethttp/contract"
	"runner/go-nethttp/internal/service"
	"runner/go-nethttp/microservices"
)

// shutdownTimeout bounds the graceful drain on SIGTERM/SIGINT.
const shutdownTimeout = 5 * time.Second

func main() {
	cfg, err := contract.ReadSettings(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-nethttp: %v\n", err)
		os.Exit(2)
	}
	ms, err := microservices.ReadSettings(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-nethttp: %v\n", err)
		os.Exit(2)
	}
	transport, err := contract.ReadTransport(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-nethttp: %v\n", err)
		os.Exit(2)
	}
	if err := run(cfg, ms, transport); err != nil {
		fmt.Fprintf(os.Stderr, "go-nethttp: %v\n", err)
		os.Exit(1)
	}
}

func run(cfg contract.Settings, ms microservices.Settings, transport contract.Transport) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	svc := service.Config{
		WorkFactor:  cfg.WorkFactor,
		LogRequests: cfg.LogRequests,
		Metrics:     cfg.Metrics,
		Logger:      logger,
		Transport:   transport,
	}
	closeScenarios, err := withScenarios(&svc, ms)
	defer closeScenarios()
	if err != nil {
		return err
	}
	handler := service.New(svc)

	// net sets TCP_NODELAY on every TCP connection by default, and
	// http.Server keeps connections alive by default.
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 30 * time.Second, // no slowloris; idle keep-alive connections are not timed out
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	// TLS only on PORT (h2 and http/1.1 by ALPN), or h2c beside HTTP/1.1.
	transport.Configure(srv)

	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		return err
	}

	info := service.CurrentRuntimeInfo()
	transport.Describe(info)
	logger.Info("listening",
		slog.String("addr", ln.Addr().String()),
		slog.Int("workFactor", cfg.WorkFactor),
		slog.Bool("logRequests", cfg.LogRequests),
		slog.Bool("metrics", cfg.Metrics),
		slog.Int("gomaxprocs", info.Parallelism),
		slog.String("memoryLimit", info.MemoryLimit),
		slog.String("tls", info.TLS),
		slog.Any("protocols", info.Protocols))

	err = contract.ServeUntilSignal(srv, ln, shutdownTimeout)
	logger.Info("stopped")
	return err
}
