package contract

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"
)

// ServeUntilSignal serves srv on ln until SIGINT or SIGTERM, then drains it
// for at most timeout and closes what is left; a second signal kills the
// process the default way. With srv.TLSConfig set it serves TLS only. Every Go service stops through it, so runner's
// stop signal and grace mean the same for each of them.
func ServeUntilSignal(srv *http.Server, ln net.Listener, timeout time.Duration) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	serveErr := make(chan error, 1)
	go func() {
		// ServeTLS (certificates from srv.TLSConfig) rather than Serve on a
		// TLS listener: it is what adds "h2" to the ALPN protocols.
		if srv.TLSConfig != nil {
			serveErr <- srv.ServeTLS(ln, "", "")
			return
		}
		serveErr <- srv.Serve(ln)
	}()
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	stop() // a second signal kills the process the default way

	shutdownCtx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		_ = srv.Close()
	}
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return err
}
