package contract

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
)

// Transport is how a service serves PORT (runtimes/CONTRACT.md, "TLS and
// HTTP/2"): plain HTTP/1.1, TLS offering h2 and http/1.1 (TLS_CERT_FILE and
// TLS_KEY_FILE), or h2c beside HTTP/1.1 (HTTP2=h2c).
type Transport struct {
	Cert *tls.Certificate // nil: no TLS
	H2C  bool
}

// ReadTransport reads TLS_CERT_FILE, TLS_KEY_FILE and HTTP2 through getenv
// and loads the key pair, so that a half-configured or unreadable TLS setup
// stops the service at start instead of serving plain HTTP by default.
func ReadTransport(getenv func(string) string) (Transport, error) {
	var t Transport
	certFile, keyFile := getenv("TLS_CERT_FILE"), getenv("TLS_KEY_FILE")
	switch h2 := getenv("HTTP2"); h2 {
	case "":
	case "h2c":
		t.H2C = true
	default:
		return t, fmt.Errorf("HTTP2=%q: want h2c or unset (HTTP/2 over TLS needs no setting)", h2)
	}
	if certFile == "" && keyFile == "" {
		return t, nil
	}
	if certFile == "" || keyFile == "" {
		return t, fmt.Errorf("TLS_CERT_FILE=%q, TLS_KEY_FILE=%q: set both or neither", certFile, keyFile)
	}
	if t.H2C {
		return t, fmt.Errorf("HTTP2=h2c with TLS_CERT_FILE=%q: h2c is HTTP/2 without TLS; over TLS h2 is offered anyway", certFile)
	}
	// Read each file on its own, so the error names the variable as well.
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return t, fmt.Errorf("TLS_CERT_FILE=%q: %v", certFile, err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return t, fmt.Errorf("TLS_KEY_FILE=%q: %v", keyFile, err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return t, fmt.Errorf("TLS_CERT_FILE=%q, TLS_KEY_FILE=%q: %v", certFile, keyFile, err)
	}
	t.Cert = &cert
	return t, nil
}

// Configure sets srv's TLS config and protocols for t. net/http offers h2
// and http/1.1 over TLS by itself; h2c has to be asked for.
func (t Transport) Configure(srv *http.Server) {
	switch {
	case t.Cert != nil:
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*t.Cert}}
	case t.H2C:
		var p http.Protocols
		p.SetHTTP1(true)
		p.SetUnencryptedHTTP2(true)
		srv.Protocols = &p
	}
}

// Describe fills the "tls" and "protocols" of info for t.
func (t Transport) Describe(info *RuntimeInfo) {
	switch {
	case t.Cert != nil:
		info.TLS = "crypto/tls"
		info.Protocols = []string{"h2", "http/1.1"}
	case t.H2C:
		info.Protocols = []string{"h2c", "http/1.1"}
	}
}
