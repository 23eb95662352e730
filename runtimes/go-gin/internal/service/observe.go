package service

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// sizeKey is where a handler notes the input size for the log line.
const sizeKey = "size"

// noteSize records the input size for the log line; without LOG_REQUESTS it
// does nothing (c.Set would allocate the context's key map).
func (s *Service) noteSize(c *gin.Context, size int) {
	if s.logOn {
		c.Set(sizeKey, size)
	}
}

// requestLogger is Gin's own request logger (gin.LoggerWithConfig, the
// ecosystem's usual one) with a line that carries what the contract asks:
// method, path, status, input size and elapsed time, plus any error a
// handler attached. Registered with Use, it also wraps the 404 and 405
// handlers, so every request writes exactly one line.
func requestLogger(out io.Writer) gin.HandlerFunc {
	return gin.LoggerWithConfig(gin.LoggerConfig{
		Output: out,
		Formatter: func(p gin.LogFormatterParams) string {
			size, _ := p.Keys[sizeKey].(int)
			line := fmt.Sprintf("%s method=%s path=%s status=%d size=%d elapsed=%s",
				p.TimeStamp.UTC().Format(time.RFC3339Nano), p.Method, strconv.Quote(p.Path), p.StatusCode, size, p.Latency)
			if msg := strings.TrimSpace(p.ErrorMessage); msg != "" {
				line += " error=" + strconv.Quote(msg)
			}
			return line + "\n"
		},
	})
}

// metricsPath is where METRICS=true serves the registry; reading it is not
// a request of the contract, so it is not counted.
const metricsPath = "/metrics"

// requestMetrics is METRICS=true: every request counted and timed, by route
// and status, in a Prometheus registry (the official client), with the
// names and labels go-nethttp uses.
type requestMetrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newRequestMetrics() *requestMetrics {
	m := &requestMetrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "http_requests_total", Help: "Requests served, by route and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "http_request_duration_seconds", Help: "Time to the response, by route.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 16),
		}, []string{"route"}),
	}
	m.registry.MustRegister(m.requests, m.latency)
	return m
}

// middleware counts and times every request. c.FullPath() is the matched
// route pattern; the 404 and 405 handlers have none and are "none".
func (m *requestMetrics) middleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route := c.FullPath()
		if route == metricsPath && c.Request.Method == http.MethodGet {
			return
		}
		if route == "" {
			route = "none"
		}
		m.requests.WithLabelValues(route, strconv.Itoa(c.Writer.Status())).Inc()
		m.latency.WithLabelValues(route).Observe(time.Since(start).Seconds())
	}
}

// handler serves the registry in the Prometheus text format.
func (m *requestMetrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
