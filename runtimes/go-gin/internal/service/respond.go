package service

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/gin-gonic/gin"
)

// Shared, never mutated header values (no allocation and no key
// canonicalisation per request).
var contentTypeJSON = []string{"application/json"}

// buffers are pooled response buffers; ones grown past maxPooledBuffer
// (huge payloads) are not kept.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBuffer = 64 << 10

// writeValue encodes v and writes it with an explicit Content-Length. Gin's
// c.JSON is not used: it writes without a Content-Length, and net/http then
// chunks any answer past its 2 KiB buffer (a large order, /api/generated),
// which the contract forbids; it also escapes <, > and & as \u003c, which
// encoding/json's encoder is told not to here, as in go-nethttp.
func writeValue(c *gin.Context, status int, v any) {
	buf := buffers.Get().(*bytes.Buffer)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		buf.Reset()
		buffers.Put(buf)
		_ = c.Error(err)
		writeJSON(c, 500, errorBody("cannot encode the answer"))
		return
	}
	writeJSON(c, status, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	buf.Reset()
	if buf.Cap() <= maxPooledBuffer {
		buffers.Put(buf)
	}
}

// writeJSON writes a complete JSON answer with an explicit Content-Length.
func writeJSON(c *gin.Context, status int, body []byte) {
	h := c.Writer.Header()
	h["Content-Type"] = contentTypeJSON
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	c.Status(status)
	_, _ = c.Writer.Write(body) // a write error means the client went away
}

// errorBody is {"error": msg}.
func errorBody(msg string) []byte {
	b, err := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	if err != nil {
		panic(err)
	}
	return b
}
