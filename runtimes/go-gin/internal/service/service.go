// Package service is runtimes/CONTRACT.md on Gin: the contract's endpoints
// (health, ready, generated, strings) with go-nethttp's work, and the three
// microservices scenarios (order API, products CRUD, dashboard fan-out) with
// go-nethttp's pure rules (runner/go-nethttp/microservices) around Gin's
// router, context and middleware.
package service

import (
	"context"
	"io"
	"os"
	"runtime"
	"sync/atomic"

	"github.com/gin-gonic/gin"

	"runner/go-nethttp/contract"
	"runner/go-nethttp/microservices"
)

const (
	language    = "go"
	serverModel = "goroutine per connection (gin)"
)

// RuntimeInfo is the "runtimeInfo" object of /health and the work answers.
type RuntimeInfo = contract.RuntimeInfo

// CurrentRuntimeInfo reads CPUs, GOMAXPROCS and the soft memory limit, with
// this service's server model.
func CurrentRuntimeInfo() *RuntimeInfo { return contract.CurrentRuntimeInfo(serverModel) }

// ProductStore is the products table (store.Products on pgxpool).
type ProductStore interface {
	Get(ctx context.Context, id int64) (microservices.Product, error)
	Create(ctx context.Context, in microservices.ProductInput) (microservices.Product, error)
	Update(ctx context.Context, id int64, in microservices.ProductInput) (microservices.Product, error)
	List(ctx context.Context, page microservices.Page) ([]microservices.Product, error)
}

// Dashboards is the fan-out (downstream.Client).
type Dashboards interface {
	Dashboard(ctx context.Context, userID int64) (microservices.Dashboard, error)
}

// Config is the whole service's configuration, read from the environment by
// main.
type Config struct {
	WorkFactor  int       // >= 1
	LogRequests bool      // one Gin logger line per request
	Metrics     bool      // count and time every request, serve GET /metrics
	LogOutput   io.Writer // the logger's output; nil means os.Stderr
	// Products is nil without DATABASE_URL: the product endpoints answer 503.
	Products ProductStore
	// Dashboards is nil without the downstream URLs: the dashboard answers 503.
	Dashboards Dashboards
}

// Service holds what the handlers share.
type Service struct {
	workFactor int
	logOn      bool
	version    string
	info       atomic.Pointer[RuntimeInfo] // refreshed by /health
	products   ProductStore
	dashboards Dashboards
}

// Build returns the Gin engine serving the whole contract.
//
// Gin is set up against its defaults where they break the contract: release
// mode (no debug route dump, no per-request debug checks); gin.New without
// Logger and Recovery (the logger only with LOG_REQUESTS, so "off" costs
// nothing; a panic is net/http's to recover, and no handler panics);
// HandleMethodNotAllowed so a known path with another method is a 405 (with
// Gin's Allow header) instead of a 404; no trailing-slash or fixed-path
// redirects (an unknown path is a 404, never a 301); and routing on the raw
// path with path values unescaped afterwards, so a segment is
// percent-decoded after the path is split, as net/http's ServeMux does
// (/api/strings/a%2Fb is the value "a/b", not a 404).
func Build(cfg Config) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	if cfg.WorkFactor < 1 {
		cfg.WorkFactor = 1
	}
	s := &Service{
		workFactor: cfg.WorkFactor,
		logOn:      cfg.LogRequests,
		version:    runtime.Version(),
		products:   cfg.Products,
		dashboards: cfg.Dashboards,
	}
	s.info.Store(CurrentRuntimeInfo())

	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.UseRawPath = true
	e.UnescapePathValues = true

	if cfg.LogRequests {
		out := cfg.LogOutput
		if out == nil {
			out = os.Stderr
		}
		e.Use(requestLogger(out))
	}
	var metrics *requestMetrics
	if cfg.Metrics {
		metrics = newRequestMetrics()
		e.Use(metrics.middleware())
	}

	// GET routes answer HEAD too (the contract's "GET (or HEAD)"). GET is
	// registered first so that Gin's Allow header reads "GET, HEAD, ...".
	get := func(path string, h gin.HandlerFunc) {
		e.GET(path, h)
		e.HEAD(path, h)
	}
	get("/health", s.health)
	get("/ready", s.ready)
	get("/api/generated/:size", s.generated)
	get("/api/strings/:value", s.strings)
	e.POST("/api/orders/calculate", s.calculateOrder)
	get("/api/products", s.listProducts)
	e.POST("/api/products", s.createProduct)
	get("/api/products/:id", s.getProduct)
	e.PUT("/api/products/:id", s.updateProduct)
	get("/api/dashboard/:userId", s.dashboard)
	if metrics != nil {
		e.GET(metricsPath, gin.WrapH(metrics.handler()))
	}
	e.NoRoute(s.notFound)
	e.NoMethod(s.methodNotAllowed)
	return e
}
