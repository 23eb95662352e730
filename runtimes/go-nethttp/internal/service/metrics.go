package service

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsPattern is where METRICS=true serves the registry; reading it is
// not a request of the contract, so it is not counted.
const metricsPattern = "GET /metrics"

// requestMetrics is METRICS=true: every request counted and timed, by route
// pattern and status, in a Prometheus registry (the official client).
type requestMetrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newRequestMetrics() *requestMetrics {
	m := &requestMetrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "http_requests_total", Help: "Requests served, by route pattern and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "http_request_duration_seconds", Help: "Time to the response, by route pattern.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 16),
		}, []string{"route"}),
	}
	m.registry.MustRegister(m.requests, m.latency)
	return m
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// wrap counts and times every request next serves. ServeMux sets
// r.Pattern while routing, so it names the route afterwards; "/" (the
// catch-all 404) is reported as "none".
func (m *requestMetrics) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		route := r.Pattern
		if route == metricsPattern {
			return
		}
		if route == "" || route == "/" {
			route = "none"
		}
		m.requests.WithLabelValues(route, strconv.Itoa(sw.status)).Inc()
		m.latency.WithLabelValues(route).Observe(time.Since(start).Seconds())
	})
}

// handler serves the registry in the Prometheus text format.
func (m *requestMetrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
