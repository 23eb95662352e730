package service

import (
	"net/http"

	"github.com/go-kit/kit/endpoint"
	"github.com/go-kit/log"
)

// Config is the whole service's configuration, read from the environment by
// main.
type Config struct {
	WorkFactor  int        // >= 1
	LogRequests bool       // one log line per request
	Metrics     bool       // count every request, expose /metrics
	Logger      log.Logger // used when LogRequests
}

// Build wires Service -> endpoints -> middlewares -> HTTP transport, the way
// a Go-Kit service is assembled. Middlewares are added only when switched
// on, so "off" costs nothing, as in the study's variants.
func Build(cfg Config) http.Handler {
	var mw []func(op) endpoint.Middleware
	var opt Options
	if cfg.Metrics {
		opt.Metrics = NewMetrics()
		mw = append(mw, opt.Metrics.Middleware())
	}
	if cfg.LogRequests {
		logger := cfg.Logger
		if logger == nil {
			logger = log.NewNopLogger()
		}
		mw = append(mw, LoggingMiddleware(logger))
	}
	eps := MakeEndpoints(New(cfg.WorkFactor), cfg.WorkFactor, cfg.LogRequests, mw...)
	return NewHTTPHandler(eps, opt)
}
