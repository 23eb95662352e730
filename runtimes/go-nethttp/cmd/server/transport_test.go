package main

// The real server (this package's main, run in a child process of the test
// binary) over TLS, h2 and h2c with a run-style certificate, and its refusals
// of a half-configured transport (runtimes/CONTRACT.md, "TLS and HTTP/2").

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"runner/go-nethttp/internal/vectors"
)

// runMainEnv makes the test binary run main instead of the tests: the child
// process of startServer and exitOf is then the real server.
const runMainEnv = "GO_NETHTTP_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// certs writes a throwaway CA and a server certificate for 127.0.0.1 and
// localhost signed by it (ca.pem, cert.pem, key.pem as PKCS#8) into dir, as
// a run makes them, and returns the pool that trusts only that CA.
func certs(t *testing.T, dir string) *x509.CertPool {
	t.Helper()
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	now := time.Now()
	caKey := newKey()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "go-nethttp test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key := newKey()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("ca.pem", "CERTIFICATE", caDER)
	write("cert.pem", "CERTIFICATE", der)
	write("key.pem", "PRIVATE KEY", pkcs8)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return pool
}

// serverEnv is the child's environment: the test's own, without any
// transport setting it may have inherited, plus env.
func serverEnv(env ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "TLS_CERT_FILE", "TLS_KEY_FILE", "HTTP2", "PORT", "HOST":
			continue
		}
		out = append(out, kv)
	}
	return append(append(out, runMainEnv+"=1", "HOST=127.0.0.1", "PORT=0"), env...)
}

var listeningAddr = regexp.MustCompile(`msg=listening addr=(127\.0\.0\.1:\d+)`)

// startServer runs the server with env and returns its address, once its
// listening line is out; it is stopped (SIGTERM, then killed) at cleanup.
func startServer(t *testing.T, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = serverEnv(env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listeningAddr.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr) // keep draining so the child never blocks on stderr
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(20 * time.Second):
		t.Fatal("no listening line from the server within 20 s")
		return ""
	}
}

// get sends GET url and returns the answer and its decoded JSON body.
func get(t *testing.T, c *http.Client, u string) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, body %v", u, resp.StatusCode, body)
	}
	return resp, body
}

// checkContract checks /health's transport fields and the first strings
// vector through c, and that every answer came over proto (e.g. "HTTP/2.0").
func checkContract(t *testing.T, c *http.Client, base, proto, tlsName string, protocols []any) []*http.Response {
	t.Helper()
	resp, health := get(t, c, base+"/health")
	info, _ := health["runtimeInfo"].(map[string]any)
	if info["tls"] != tlsName || !reflect.DeepEqual(info["protocols"], protocols) {
		t.Errorf("/health runtimeInfo tls %v, protocols %v; want %q, %v", info["tls"], info["protocols"], tlsName, protocols)
	}
	vf, err := vectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	v := vf.Strings[0]
	if v.WorkFactor != 1 {
		t.Fatalf("strings vector %q has workFactor %d, the server runs with 1", v.Value, v.WorkFactor)
	}
	resp2, work := get(t, c, base+"/api/strings/"+url.PathEscape(v.Value))
	if work["input"] != v.Input || work["hash"] != float64(v.Hash) || work["workScore"] != float64(v.WorkScore) {
		t.Errorf("/api/strings/%s: %v, want the vector %+v", v.Value, work, v)
	}
	for _, r := range []*http.Response{resp, resp2} {
		if r.Proto != proto {
			t.Errorf("%s: answered over %s, want %s", r.Request.URL.Path, r.Proto, proto)
		}
	}
	return []*http.Response{resp, resp2}
}

// client trusts only the test CA (nil: plain) and speaks only the protocols of p.
func client(pool *x509.CertPool, p func(*http.Protocols)) *http.Client {
	var protos http.Protocols
	p(&protos)
	tr := &http.Transport{Protocols: &protos}
	if pool != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

func TestTLSServesHTTP1AndH2(t *testing.T) {
	dir := t.TempDir()
	pool := certs(t, dir)
	addr := startServer(t, "TLS_CERT_FILE="+filepath.Join(dir, "cert.pem"), "TLS_KEY_FILE="+filepath.Join(dir, "key.pem"))
	want := []any{"h2", "http/1.1"}
	for _, base := range []string{"https://" + addr, "https://localhost:" + strings.Split(addr, ":")[1]} {
		h1 := client(pool, func(p *http.Protocols) { p.SetHTTP1(true) })
		for _, r := range checkContract(t, h1, base, "HTTP/1.1", "crypto/tls", want) {
			if r.TLS == nil || r.TLS.NegotiatedProtocol == "h2" {
				t.Errorf("HTTPS/1.1 answer: TLS state %+v", r.TLS)
			}
		}
		h2 := client(pool, func(p *http.Protocols) { p.SetHTTP2(true) })
		for _, r := range checkContract(t, h2, base, "HTTP/2.0", "crypto/tls", want) {
			if r.TLS == nil || r.TLS.NegotiatedProtocol != "h2" {
				t.Errorf("h2 answer: ALPN %+v, want h2", r.TLS)
			}
		}
	}
	// TLS only: a plain HTTP request on the port gets no answer.
	plain := client(nil, func(p *http.Protocols) { p.SetHTTP1(true) })
	if resp, err := plain.Get("http://" + addr + "/health"); err == nil && resp.StatusCode == http.StatusOK {
		t.Errorf("plain HTTP on the TLS port answered %s", resp.Status)
	}
}

func TestH2CBesideHTTP1(t *testing.T) {
	addr := startServer(t, "HTTP2=h2c")
	want := []any{"h2c", "http/1.1"}
	h2c := client(nil, func(p *http.Protocols) { p.SetUnencryptedHTTP2(true) })
	checkContract(t, h2c, "http://"+addr, "HTTP/2.0", "off", want)
	h1 := client(nil, func(p *http.Protocols) { p.SetHTTP1(true) })
	checkContract(t, h1, "http://"+addr, "HTTP/1.1", "off", want)
}

func TestPlainByDefault(t *testing.T) {
	addr := startServer(t)
	h1 := client(nil, func(p *http.Protocols) { p.SetHTTP1(true) })
	checkContract(t, h1, "http://"+addr, "HTTP/1.1", "off", []any{"http/1.1"})
}

// exitOf runs the server with env, expecting it to refuse to start.
func exitOf(t *testing.T, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = serverEnv(env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%v: still running after 20 s, want a refusal at start", env)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

func TestTransportRefusals(t *testing.T) {
	dir := t.TempDir()
	certs(t, dir)
	other := t.TempDir()
	certs(t, other) // another key pair: its key does not match dir's certificate
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	missing := filepath.Join(dir, "missing.pem")
	for _, c := range []struct {
		name string
		env  []string
		want []string // in the message
	}{
		{"cert only", []string{"TLS_CERT_FILE=" + cert}, []string{"TLS_KEY_FILE", cert}},
		{"key only", []string{"TLS_KEY_FILE=" + key}, []string{"TLS_CERT_FILE", key}},
		{"missing cert", []string{"TLS_CERT_FILE=" + missing, "TLS_KEY_FILE=" + key}, []string{"TLS_CERT_FILE", missing}},
		{"missing key", []string{"TLS_CERT_FILE=" + cert, "TLS_KEY_FILE=" + missing}, []string{"TLS_KEY_FILE", missing}},
		{"key of another certificate", []string{"TLS_CERT_FILE=" + cert, "TLS_KEY_FILE=" + filepath.Join(other, "key.pem")}, []string{"TLS_KEY_FILE", cert}},
		{"unknown HTTP2", []string{"HTTP2=h2"}, []string{"HTTP2"}},
		{"h2c with TLS", []string{"HTTP2=h2c", "TLS_CERT_FILE=" + cert, "TLS_KEY_FILE=" + key}, []string{"HTTP2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, msg := exitOf(t, c.env...)
			if code == 0 {
				t.Errorf("exit status 0, want non-zero; stderr %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q does not name %q", msg, w)
				}
			}
		})
	}
}
