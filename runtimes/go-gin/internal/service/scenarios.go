package service

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"

	"runner/go-nethttp/microservices"
	"runner/go-nethttp/microservices/store"
)

// maxBodyBytes bounds a request body (the largest valid order is ~10 KB).
const maxBodyBytes = 1 << 20

var (
	productNotFoundBody = errorBody("product not found")
	noDatabaseBody      = errorBody("no database configured")
	dbUnavailableBody   = errorBody("database unavailable")
	noDownstreamsBody   = errorBody("no downstreams configured")
	badPageBody         = errorBody(microservices.ErrPage.Error())
	tooLargeBody        = errorBody(fmt.Sprintf("body over %d bytes", maxBodyBytes))
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

// readBody reads the request body whole; false means the answer (413) is
// written. Content-Type is not checked (the contract).
func (s *Service) readBody(c *gin.Context) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		writeJSON(c, http.StatusRequestEntityTooLarge, tooLargeBody)
		return nil, false
	}
	s.noteSize(c, len(body))
	return body, true
}

// writeBodyError answers a body the rules refused: 400 or 422.
func writeBodyError(c *gin.Context, err error) {
	var ve *microservices.ValidationError
	if errors.As(err, &ve) {
		writeValue(c, http.StatusUnprocessableEntity, &validationResponse{Error: "validation failed", Invalid: ve.Invalid, Details: ve.Details})
		return
	}
	writeJSON(c, http.StatusBadRequest, errorBody(err.Error()))
}

// calculateOrder is POST /api/orders/calculate (CPU-bound).
func (s *Service) calculateOrder(c *gin.Context) {
	body, ok := s.readBody(c)
	if !ok {
		return
	}
	priced, err := microservices.CalculateOrder(body)
	if err != nil {
		writeBodyError(c, err)
		return
	}
	writeValue(c, http.StatusOK, priced)
}

// productID reads :id; a non-canonical id names no product (a 404).
func productID(c *gin.Context) (int64, bool) {
	id, ok := microservices.CanonicalID(c.Param("id"))
	if !ok {
		writeJSON(c, http.StatusNotFound, productNotFoundBody)
	}
	return id, ok
}

// productBody reads and validates a POST/PUT body; false means the answer
// is written.
func (s *Service) productBody(c *gin.Context) (microservices.ProductInput, bool) {
	body, ok := s.readBody(c)
	if !ok {
		return microservices.ProductInput{}, false
	}
	in, err := microservices.ParseProduct(body)
	if err != nil {
		writeBodyError(c, err)
		return in, false
	}
	return in, true
}

// haveDatabase answers 503 without DATABASE_URL.
func (s *Service) haveDatabase(c *gin.Context) bool {
	if s.products == nil {
		writeJSON(c, http.StatusServiceUnavailable, noDatabaseBody)
		return false
	}
	return true
}

// writeProduct answers a store result: the product, a 404 or a 503.
func writeProduct(c *gin.Context, status int, p microservices.Product, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeJSON(c, http.StatusNotFound, productNotFoundBody)
	case err != nil:
		_ = c.Error(err) // the cause, for the log line
		writeJSON(c, http.StatusServiceUnavailable, dbUnavailableBody)
	default:
		writeValue(c, status, &p)
	}
}

func (s *Service) getProduct(c *gin.Context) {
	id, ok := productID(c)
	if !ok || !s.haveDatabase(c) {
		return
	}
	p, err := s.products.Get(c.Request.Context(), id)
	writeProduct(c, http.StatusOK, p, err)
}

func (s *Service) createProduct(c *gin.Context) {
	in, ok := s.productBody(c)
	if !ok || !s.haveDatabase(c) {
		return
	}
	p, err := s.products.Create(c.Request.Context(), in)
	writeProduct(c, http.StatusCreated, p, err)
}

// updateProduct checks the body before the id's row: an invalid body is a
// 400/422 even for an absent id (the contract).
func (s *Service) updateProduct(c *gin.Context) {
	id, ok := productID(c)
	if !ok {
		return
	}
	in, ok := s.productBody(c)
	if !ok || !s.haveDatabase(c) {
		return
	}
	p, err := s.products.Update(c.Request.Context(), id, in)
	writeProduct(c, http.StatusOK, p, err)
}

func (s *Service) listProducts(c *gin.Context) {
	page, err := microservices.ListPage(c.Request.URL.Query())
	if err != nil {
		writeJSON(c, http.StatusBadRequest, badPageBody)
		return
	}
	if !s.haveDatabase(c) {
		return
	}
	items, err := s.products.List(c.Request.Context(), page)
	if err != nil {
		_ = c.Error(err)
		writeJSON(c, http.StatusServiceUnavailable, dbUnavailableBody)
		return
	}
	writeValue(c, http.StatusOK, &microservices.ProductList{Items: items, Limit: page.Limit, Offset: page.Offset})
}

// dashboard is GET /api/dashboard/{userId} (fan-out).
func (s *Service) dashboard(c *gin.Context) {
	userID, ok := microservices.CanonicalID(c.Param("userId"))
	if !ok {
		writeJSON(c, http.StatusNotFound, notFoundBody)
		return
	}
	if s.dashboards == nil {
		writeJSON(c, http.StatusServiceUnavailable, noDownstreamsBody)
		return
	}
	d, err := s.dashboards.Dashboard(c.Request.Context(), userID)
	var de *microservices.DownstreamError
	switch {
	case errors.As(err, &de):
		_ = c.Error(err)
		writeValue(c, http.StatusBadGateway, &downstreamResponse{Error: "downstream failed", Downstream: de.Downstream, Reason: de.Reason})
	case err != nil:
		_ = c.Error(err)
		writeJSON(c, http.StatusBadGateway, errorBody(err.Error()))
	default:
		writeValue(c, http.StatusOK, &d)
	}
}
