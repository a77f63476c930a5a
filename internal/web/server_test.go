package web

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testCert is a self-signed certificate (usable as its own CA) for
// 127.0.0.1, written as PEM files.
type testCert struct {
	certFile, keyFile string
	cert              *x509.Certificate
	pair              tls.Certificate
}

func newTestCert(t *testing.T, dir, name string) testCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	c := testCert{certFile: filepath.Join(dir, name+".crt"), keyFile: filepath.Join(dir, name+".key")}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	if err := os.WriteFile(c.certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if c.cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	if c.pair, err = tls.X509KeyPair(certPEM, keyPEM); err != nil {
		t.Fatal(err)
	}
	return c
}

// startServer serves s on 127.0.0.1:0 and shuts it down at cleanup.
func startServer(t *testing.T, s *Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return l.Addr().String()
}

func httpsClient(t *testing.T, ca *x509.Certificate, client *tls.Certificate) *http.Client {
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	cfg := &tls.Config{RootCAs: pool}
	if client != nil { // sent whatever CAs the server names
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return client, nil }
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true}}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestServerTLSStatic(t *testing.T) { onEngines(t, testServerTLSStatic) }

func testServerTLSStatic(t *testing.T) {
	base := staticFixture(t)
	certs := t.TempDir()
	srvCert := newTestCert(t, certs, "server")
	clientCA := newTestCert(t, certs, "clientca")
	stranger := newTestCert(t, certs, "stranger")
	tr := staticTree(t, base, false)
	var logBuf syncBuffer
	s, err := NewServer(ServerOptions{Engine: testEngine(t),
		Handler:   tr,
		TLS:       &TLSOptions{CertFile: srvCert.certFile, KeyFile: srvCert.keyFile, ClientCAFiles: []string{clientCA.certFile}},
		HSTS:      true,
		AccessLog: true,
		Logger:    slog.New(slog.NewTextHandler(&logBuf, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	addr := startServer(t, s)
	for _, tc := range []struct {
		name   string
		client *tls.Certificate
		ok     bool
	}{{"no client cert", nil, true}, {"trusted client cert", &clientCA.pair, true}, {"unknown client cert", &stranger.pair, false}} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := httpsClient(t, srvCert.cert, tc.client).Get("https://" + addr + "/static/hello.txt")
			if !tc.ok {
				if err == nil {
					resp.Body.Close()
					t.Fatal("handshake with an untrusted client certificate succeeded")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || string(body) != "hello world" {
				t.Errorf("%d %q", resp.StatusCode, body)
			}
			if got := resp.Header.Get("Strict-Transport-Security"); got != "max-age=31536000" {
				t.Errorf("HSTS %q", got)
			}
		})
	}
	line := logBuf.String()
	for _, want := range []string{"method=GET", "path=/static/hello.txt", "status=200", "bytes=11", "remote=127.0.0.1:", "duration="} {
		if !strings.Contains(line, want) {
			t.Errorf("access log lacks %q: %s", want, line)
		}
	}
}

func TestServerPlainHTTPNoHSTS(t *testing.T) { onEngines(t, testServerPlainHTTPNoHSTS) }

func testServerPlainHTTPNoHSTS(t *testing.T) {
	s, err := NewServer(ServerOptions{Engine: testEngine(t), Handler: NewTree(), HSTS: true, HSTSMaxAge: 60})
	if err != nil {
		t.Fatal(err)
	}
	addr := startServer(t, s)
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get("http://" + addr + "/nothing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("Strict-Transport-Security") != "" {
		t.Errorf("%d HSTS %q", resp.StatusCode, resp.Header.Get("Strict-Transport-Security"))
	}
}

func TestServerOptionErrors(t *testing.T) {
	dir := t.TempDir()
	c := newTestCert(t, dir, "c")
	notPEM := filepath.Join(dir, "x.pem")
	if err := os.WriteFile(notPEM, []byte("nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string]ServerOptions{
		"nil handler":   {},
		"negative hsts": {Handler: NewTree(), HSTS: true, HSTSMaxAge: -1},
		"no key":        {Handler: NewTree(), TLS: &TLSOptions{CertFile: c.certFile}},
		"missing files": {Handler: NewTree(), TLS: &TLSOptions{CertFile: "/nonexistent", KeyFile: "/nonexistent"}},
		"key mismatch":  {Handler: NewTree(), TLS: &TLSOptions{CertFile: c.certFile, KeyFile: notPEM}},
		"ca not pem":    {Handler: NewTree(), TLS: &TLSOptions{CertFile: c.certFile, KeyFile: c.keyFile, ClientCAFiles: []string{notPEM}}},
		"ca missing":    {Handler: NewTree(), TLS: &TLSOptions{CertFile: c.certFile, KeyFile: c.keyFile, ClientCAFiles: []string{"/nonexistent"}}},
	} {
		if _, err := NewServer(opts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Shutdown waits for an in-flight request, which completes normally.
func TestServerGracefulShutdown(t *testing.T) { onEngines(t, testServerGracefulShutdown) }

func testServerGracefulShutdown(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		io.WriteString(w, "finished")
	})
	s, err := NewServer(ServerOptions{Engine: testEngine(t), Handler: h})
	if err != nil {
		t.Fatal(err)
	}
	shutdownStarted := make(chan struct{})
	s.OnShutdown(func() { close(shutdownStarted) })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()

	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := c.Get("http://" + l.Addr().String() + "/")
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- result{string(b), err}
	}()
	<-entered
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	<-shutdownStarted
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v while a request was in flight", err)
	default:
	}
	close(release)
	if r := <-got; r.err != nil || r.body != "finished" {
		t.Fatalf("in-flight request: %q %v", r.body, r.err)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// Shutdown with an expired context reports it and closes the connection.
func TestServerShutdownDeadline(t *testing.T) { onEngines(t, testServerShutdownDeadline) }

func testServerShutdownDeadline(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	s, err := NewServer(ServerOptions{Engine: testEngine(t), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
	})})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		if resp, err := c.Get("http://" + l.Addr().String() + "/"); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown = %v, want context.Canceled", err)
	}
	close(release)
	<-clientDone
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// The access-log writer keeps http.Hijacker working (WebSocket upgrades).
func TestAccessLogHijack(t *testing.T) { onEngines(t, testAccessLogHijack) }

func testAccessLogHijack(t *testing.T) {
	var logBuf syncBuffer
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Errorf("Hijack: %v", err)
			return
		}
		defer c.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\nhi")
		rw.Flush()
	})
	s, err := NewServer(ServerOptions{Engine: testEngine(t), Handler: h, AccessLog: true, Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	addr := startServer(t, s)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /up HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("%v %v", resp, err)
	}
	b, _ := io.ReadAll(br)
	if string(b) != "hi" {
		t.Errorf("after upgrade: %q", b)
	}
	if line := <-logBuf.lines(); !strings.Contains(line, "status=101") {
		t.Errorf("access log: %s", line)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger's goroutines and a test
// together. Each Write (one slog record) is also offered on lines().
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	ch chan string
}

func (b *syncBuffer) lines() chan string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan string, 16)
	}
	return b.ch
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	ch := b.lines()
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case ch <- string(p):
	default:
	}
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
