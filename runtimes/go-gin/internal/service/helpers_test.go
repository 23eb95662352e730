package service

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// serve starts the real engine on an ephemeral 127.0.0.1 port.
func serve(t *testing.T, cfg Config) string {
	t.Helper()
	srv := httptest.NewServer(Build(cfg))
	t.Cleanup(srv.Close)
	return srv.URL
}

// send makes one request and checks the framing every answer must have:
// JSON with an explicit Content-Length (never chunked).
func send(t *testing.T, method, u, body string) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, r)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(req.URL.Path, "/metrics") && resp.StatusCode == 200 {
		return resp, out // Prometheus text format
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, u, ct)
	}
	if method != http.MethodHead {
		if resp.ContentLength != int64(len(out)) || len(resp.TransferEncoding) != 0 {
			t.Errorf("%s %s: Content-Length %d, body %d bytes (transfer encoding %v)", method, u, resp.ContentLength, len(out), resp.TransferEncoding)
		}
		if !json.Valid(out) {
			t.Errorf("%s %s: not JSON: %q", method, u, out)
		}
	}
	return resp, out
}

// sameJSON says whether two JSON texts are the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// member reads one top-level member of a JSON object answer.
func member(t *testing.T, body []byte, name string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return m[name]
}
