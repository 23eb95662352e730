package service

// The microservices scenarios of runtimes/CONTRACT.md ("Microservices") on
// ServeMux: the order API, CRUD on products and the dashboard fan-out, with
// the rules of package microservices, the products table of
// microservices/store (pgxpool) and the fan-out of microservices/downstream
// (errgroup), the same code go-gin serves through Gin.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"runner/go-nethttp/microservices"
	"runner/go-nethttp/microservices/store"
)

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

// maxScenarioBody bounds a request body (the largest valid order is ~10 KB).
const maxScenarioBody = 1 << 20

var (
	productNotFoundBody = errorBody("product not found")
	noDatabaseBody      = errorBody("no database configured")
	dbUnavailableBody   = errorBody("database unavailable")
	noDownstreamsBody   = errorBody("no downstreams configured")
	badPageBody         = errorBody(microservices.ErrPage.Error())
	scenarioTooLarge    = errorBody(fmt.Sprintf("body over %d bytes", maxScenarioBody))
)

type validationResponse struct {
	Error   string            `json:"error"`
	Invalid []string          `json:"invalid"`
	Details map[string]string `json:"details"`
}

type downstreamResponse struct {
	Error      string `json:"error"`
	Downstream string `json:"downstream"`
	Reason     string `json:"reason"`
}

// registerMicroservices adds the scenarios' routes to m; each path's
// method-less twin is the 405 with the path's own Allow.
func (s *Service) registerMicroservices(m *http.ServeMux) {
	m.HandleFunc("POST /api/orders/calculate", s.calculateOrder)
	m.HandleFunc("GET /api/products", s.listProducts)
	m.HandleFunc("POST /api/products", s.createProduct)
	m.HandleFunc("GET /api/products/{id}", s.getProduct)
	m.HandleFunc("PUT /api/products/{id}", s.updateProduct)
	m.HandleFunc("GET /api/dashboard/{userId}", s.dashboard)
	for path, allow := range map[string]string{
		"/api/orders/calculate":   "POST",
		"/api/products":           "GET, HEAD, POST",
		"/api/products/{id}":      "GET, HEAD, PUT",
		"/api/dashboard/{userId}": "GET, HEAD",
	} {
		allowed := []string{allow}
		m.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			start := s.now()
			w.Header()["Allow"] = allowed
			writeJSON(w, http.StatusMethodNotAllowed, notAllowedBody)
			s.logRequest(r, http.StatusMethodNotAllowed, 0, start)
		})
	}
}

// scenarioWriter writes a scenario's answer and logs the request once.
type scenarioWriter struct {
	s     *Service
	w     http.ResponseWriter
	r     *http.Request
	start time.Time
	size  int
}

func (s *Service) scenario(w http.ResponseWriter, r *http.Request) *scenarioWriter {
	return &scenarioWriter{s: s, w: w, r: r, start: s.now()}
}

func (sw *scenarioWriter) raw(status int, body []byte) {
	writeJSON(sw.w, status, body)
	sw.s.logRequest(sw.r, status, sw.size, sw.start)
}

func (sw *scenarioWriter) value(status int, v any) {
	e := encoders.Get().(*encoder)
	if err := e.enc.Encode(v); err != nil {
		e.buf.Reset()
		encoders.Put(e)
		sw.raw(http.StatusInternalServerError, errorBody("cannot encode the answer"))
		return
	}
	b := e.buf.Bytes()
	writeJSON(sw.w, status, b[:len(b)-1]) // minus the Encoder's newline
	e.buf.Reset()
	if e.buf.Cap() <= maxPooledBuffer {
		encoders.Put(e)
	}
	sw.s.logRequest(sw.r, status, sw.size, sw.start)
}

// body reads the request body whole; false means the 413 is written.
func (sw *scenarioWriter) body() ([]byte, bool) {
	b, err := io.ReadAll(http.MaxBytesReader(sw.w, sw.r.Body, maxScenarioBody))
	sw.size = len(b)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		sw.raw(http.StatusRequestEntityTooLarge, scenarioTooLarge)
		return nil, false
	}
	return b, true
}

// bodyError answers a body the rules refused: 400 or 422.
func (sw *scenarioWriter) bodyError(err error) {
	var ve *microservices.ValidationError
	if errors.As(err, &ve) {
		sw.value(http.StatusUnprocessableEntity, &validationResponse{Error: "validation failed", Invalid: ve.Invalid, Details: ve.Details})
		return
	}
	sw.raw(http.StatusBadRequest, errorBody(err.Error()))
}

func (s *Service) calculateOrder(w http.ResponseWriter, r *http.Request) {
	sw := s.scenario(w, r)
	body, ok := sw.body()
	if !ok {
		return
	}
	priced, err := microservices.CalculateOrder(body)
	if err != nil {
		sw.bodyError(err)
		return
	}
	sw.value(http.StatusOK, priced)
}

// product answers a store result: the product, a 404 or a 503.
func (sw *scenarioWriter) product(status int, p microservices.Product, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		sw.raw(http.StatusNotFound, productNotFoundBody)
	case err != nil:
		sw.raw(http.StatusServiceUnavailable, dbUnavailableBody)
	default:
		sw.value(status, &p)
	}
}

// productInput reads and validates a POST/PUT body; false means the answer
// is written.
func (sw *scenarioWriter) productInput() (microservices.ProductInput, bool) {
	body, ok := sw.body()
	if !ok {
		return microservices.ProductInput{}, false
	}
	in, err := microservices.ParseProduct(body)
	if err != nil {
		sw.bodyError(err)
		return in, false
	}
	return in, true
}

func (sw *scenarioWriter) haveDatabase() bool {
	if sw.s.products == nil {
		sw.raw(http.StatusServiceUnavailable, noDatabaseBody)
		return false
	}
	return true
}

func (s *Service) getProduct(w http.ResponseWriter, r *http.Request) {
	sw := s.scenario(w, r)
	id, ok := microservices.CanonicalID(r.PathValue("id"))
	if !ok {
		sw.raw(http.StatusNotFound, productNotFoundBody)
		return
	}
	if sw.haveDatabase() {
		p, err := s.products.Get(r.Context(), id)
		sw.product(http.StatusOK, p, err)
	}
}

func (s *Service) createProduct(w http.ResponseWriter, r *http.Request) {
	sw := s.scenario(w, r)
	in, ok := sw.productInput()
	if ok && sw.haveDatabase() {
		p, err := s.products.Create(r.Context(), in)
		sw.product(http.StatusCreated, p, err)
	}
}

// updateProduct checks the body before the id's row: an invalid body is a
// 400/422 even for an absent id (the contract).
func (s *Service) updateProduct(w http.ResponseWriter, r *http.Request) {
	sw := s.scenario(w, r)
	id, ok := microservices.CanonicalID(r.PathValue("id"))
	if !ok {
		sw.raw(http.StatusNotFound, productNotFoundBody)
		return
	}
	in, ok := sw.productInput()
	if ok && sw.haveDatabase() {
		p, err := s.products.Update(r.Context(), id, in)
		sw.product(http.StatusOK, p, err)
	}
}

func (s *Service) listProducts(w http.ResponseWriter, r *http.Request) {
	sw := s.scenario(w, r)
	page, err := microservices.ListPage(r.URL.Query())
	if err != nil {
		sw.raw(http.StatusBadRequest, badPageBody)
		return
	}
	if !sw.haveDatabase() {
		return
	}
	items, err := s.products.List(r.Context(), page)
	if err != nil {
		sw.raw(http.StatusServiceUnavailable, dbUnavailableBody)
		return
	}
	sw.value(http.StatusOK, &microservices.ProductList{Items: items, Limit: page.Limit, Offset: page.Offset})
}

func (s *Service) dashboard(w http.ResponseWriter, r *http.Request) {
	sw := s.scenario(w, r)
	userID, ok := microservices.CanonicalID(r.PathValue("userId"))
	if !ok {
		sw.raw(http.StatusNotFound, notFoundBody)
		return
	}
	if s.dashboards == nil {
		sw.raw(http.StatusServiceUnavailable, noDownstreamsBody)
		return
	}
	d, err := s.dashboards.Dashboard(r.Context(), userID)
	var de *microservices.DownstreamError
	switch {
	case errors.As(err, &de):
		sw.value(http.StatusBadGateway, &downstreamResponse{Error: "downstream failed", Downstream: de.Downstream, Reason: de.Reason})
	case err != nil:
		sw.raw(http.StatusBadGateway, errorBody(err.Error()))
	default:
		sw.value(http.StatusOK, &d)
	}
}
