// Command server is the Go net/http service of runtimes/CONTRACT.md.
//
// Environment: PORT (default 8080), HOST (default 127.0.0.1), WORK_FACTOR
// (integer >= 1, default 1), LOG_REQUESTS (true/false, default false), plus
// the Go runtime's own GOMAXPROCS and GOMEMLIMIT.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"runner/go-nethttp/internal/service"
)

// shutdownTimeout bounds the graceful drain on SIGTERM/SIGINT.
const shutdownTimeout = 5 * time.Second

type config struct {
	host        string
	port        int
	workFactor  int
	logRequests bool
	metrics     bool
}

func main() {
	cfg, err := readConfig(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-nethttp: %v\n", err)
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintf(os.Stderr, "go-nethttp: %v\n", err)
		os.Exit(1)
	}
}

func readConfig(getenv func(string) string) (config, error) {
	cfg := config{host: "127.0.0.1", port: 8080, workFactor: 1}
	if v := getenv("HOST"); v != "" {
		cfg.host = v
	}
	if v := getenv("PORT"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 0 || p > 65535 {
			return cfg, fmt.Errorf("PORT=%q: want an integer port in 0..65535", v)
		}
		cfg.port = p
	}
	if v := getenv("WORK_FACTOR"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("WORK_FACTOR=%q: want an integer >= 1", v)
		}
		cfg.workFactor = n
	}
	if v := getenv("LOG_REQUESTS"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return cfg, fmt.Errorf("LOG_REQUESTS=%q: want true or false", v)
		}
		cfg.logRequests = b
	}
	if v := getenv("METRICS"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return cfg, fmt.Errorf("METRICS=%q: want true or false", v)
		}
		cfg.metrics = b
	}
	return cfg, nil
}

func run(cfg config) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	handler := service.New(service.Config{
		WorkFactor:  cfg.workFactor,
		LogRequests: cfg.logRequests,
		Metrics:     cfg.metrics,
		Logger:      logger,
	})

	// net sets TCP_NODELAY on every TCP connection by default, and
	// http.Server keeps connections alive by default.
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 30 * time.Second, // no slowloris; idle keep-alive connections are not timed out
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}

	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.host, strconv.Itoa(cfg.port)))
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	info := service.CurrentRuntimeInfo()
	logger.Info("listening",
		slog.String("addr", ln.Addr().String()),
		slog.Int("workFactor", cfg.workFactor),
		slog.Bool("logRequests", cfg.logRequests),
		slog.Bool("metrics", cfg.metrics),
		slog.Int("gomaxprocs", info.Parallelism),
		slog.String("memoryLimit", info.MemoryLimit))

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	stop() // a second signal kills the process the default way

	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		_ = srv.Close()
	}
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return err
}
