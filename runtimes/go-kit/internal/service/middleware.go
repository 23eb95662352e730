package service

import (
	"context"
	"time"

	"github.com/go-kit/kit/endpoint"
	"github.com/go-kit/kit/metrics"
	kitprometheus "github.com/go-kit/kit/metrics/prometheus"
	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
)

// LoggingMiddleware is Go-Kit's request-logging endpoint middleware: one
// logfmt line per request through go-kit/log, with the endpoint, the path,
// the input size, the error if any and the elapsed time (the contract's
// LOG_REQUESTS=true). The study found request logging the main cost.
func LoggingMiddleware(logger log.Logger) func(op) endpoint.Middleware {
	return func(name op) endpoint.Middleware {
		return func(next endpoint.Endpoint) endpoint.Endpoint {
			return func(ctx context.Context, r any) (any, error) {
				start := time.Now()
				resp, err := next(ctx, r)
				req, _ := r.(request)
				size := 0
				if w, ok := resp.(workResponse); ok {
					size = len(w.Input)
				}
				_ = logger.Log("endpoint", string(name), "path", req.Path, "size", size,
					"err", errString(err), "took", time.Since(start))
				return resp, err
			}
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Metrics is the service's Prometheus registry with Go-Kit's metric types
// over it: a request counter and a latency histogram, labelled by endpoint
// and outcome.
type Metrics struct {
	Registry *prometheus.Registry
	requests metrics.Counter
	latency  metrics.Histogram
}

// NewMetrics registers the request counter and latency histogram on a fresh
// registry (plus the Go runtime and process collectors, as a real service
// exposes them).
func NewMetrics() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "http_requests_total", Help: "Requests served, by endpoint and outcome.",
	}, []string{"endpoint", "error"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "http_request_duration_seconds", Help: "Time spent in the endpoint, by endpoint and outcome.",
		Buckets: prometheus.ExponentialBuckets(0.00005, 2, 16),
	}, []string{"endpoint", "error"})
	reg.MustRegister(requests, latency)
	return &Metrics{
		Registry: reg,
		requests: kitprometheus.NewCounter(requests),
		latency:  kitprometheus.NewHistogram(latency),
	}
}

// Middleware is Go-Kit's instrumenting endpoint middleware: every request is
// counted and its latency observed (the contract's METRICS=true).
func (m *Metrics) Middleware() func(op) endpoint.Middleware {
	return func(name op) endpoint.Middleware {
		return func(next endpoint.Endpoint) endpoint.Endpoint {
			return func(ctx context.Context, r any) (any, error) {
				start := time.Now()
				resp, err := next(ctx, r)
				failed := "false"
				if err != nil {
					failed = "true"
				}
				m.requests.With("endpoint", string(name), "error", failed).Add(1)
				m.latency.With("endpoint", string(name), "error", failed).Observe(time.Since(start).Seconds())
				return resp, err
			}
		}
	}
}
