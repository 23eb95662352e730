package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	kithttp "github.com/go-kit/kit/transport/http"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Options configures the HTTP side.
type Options struct {
	// Metrics, when set, exposes GET /metrics (not itself counted).
	Metrics *Metrics
}

// routes of the contract: pattern -> operation and its path parameter.
var routes = []struct {
	pattern string
	op      op
	param   string
}{
	{"/health", opHealth, ""},
	{"/ready", opReady, ""},
	{"/api/generated/{size}", opGenerated, "size"},
	{"/api/strings/{value}", opStrings, "value"},
}

// NewHTTPHandler routes the contract's paths (net/http's ServeMux patterns,
// as go-nethttp: Go-Kit itself has no router) to Go-Kit HTTP servers over
// the endpoints. Unknown paths and other methods go through endpoints too,
// so that they are logged and counted like every other request.
func NewHTTPHandler(eps Endpoints, opt Options) http.Handler {
	mux := http.NewServeMux()
	serverOpts := []kithttp.ServerOption{kithttp.ServerErrorEncoder(encodeError)}
	for _, r := range routes {
		mux.Handle("GET "+r.pattern, kithttp.NewServer(eps[r.op], decoder(r.op, r.param), encodeJSON, serverOpts...))
		mux.Handle(r.pattern, kithttp.NewServer(eps[opMethod], decoder(opMethod, ""), encodeJSON, serverOpts...))
	}
	if opt.Metrics != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(opt.Metrics.Registry, promhttp.HandlerOpts{}))
	}
	mux.Handle("/", kithttp.NewServer(eps[opNotFound], decoder(opNotFound, ""), encodeJSON, serverOpts...))
	return mux
}

func decoder(o op, param string) kithttp.DecodeRequestFunc {
	return func(_ context.Context, r *http.Request) (any, error) {
		req := request{Path: r.URL.Path, op: o}
		if param != "" {
			req.Param = r.PathValue(param) // percent-decoded by the mux
		}
		return req, nil
	}
}

// encodeJSON writes the answer with an explicit Content-Length (the
// contract; go-kit's EncodeJSONResponse streams, which chunks large bodies).
func encodeJSON(_ context.Context, w http.ResponseWriter, resp any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(resp); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return nil
}

// encodeError maps the Service's errors to the contract's statuses.
func encodeError(_ context.Context, err error, w http.ResponseWriter) {
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, ErrSize), errors.Is(err, ErrValue):
		status = http.StatusBadRequest
	case errors.Is(err, ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, ErrMethod):
		status = http.StatusMethodNotAllowed
		w.Header().Set("Allow", "GET, HEAD")
	}
	body, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{err.Error()})
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
