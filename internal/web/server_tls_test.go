package web

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestTLSReload: Reload makes the config of Load present the certificate
// now in the files; a file that no longer loads keeps the one in use and
// wraps ErrTLS; Reload before Load does nothing.
func TestTLSReload(t *testing.T) {
	dir := t.TempDir()
	first := newTestCert(t, dir, "server")
	o := &TLSOptions{CertFile: first.certFile, KeyFile: first.keyFile}
	if err := o.Reload(); err != nil {
		t.Fatalf("Reload before Load: %v", err)
	}
	cfg, err := o.Load()
	if err != nil {
		t.Fatal(err)
	}
	served := func() []byte {
		t.Helper()
		c, err := cfg.GetCertificate(&tls.ClientHelloInfo{})
		if err != nil {
			t.Fatal(err)
		}
		return c.Certificate[0]
	}
	if !bytes.Equal(served(), first.cert.Raw) {
		t.Fatal("Load: not the certificate of the files")
	}
	second := newTestCert(t, dir, "server") // the same file names, a new pair
	if err := o.Reload(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(served(), second.cert.Raw) {
		t.Error("after Reload: still the old certificate")
	}
	if err := os.WriteFile(o.KeyFile, []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := o.Reload(); !errors.Is(err, ErrTLS) {
		t.Errorf("Reload of a broken key: %v, want ErrTLS", err)
	}
	if !bytes.Equal(served(), second.cert.Raw) {
		t.Error("after a failed Reload: the certificate in use changed")
	}
}

// Reload makes a server's new handshakes verify client certificates
// against the CA files as they are now, keeping ALPN; a CA file that no
// longer loads keeps the CAs (and the certificate) in use.
func TestServerTLSReloadClientCAs(t *testing.T) { onEngines(t, testServerTLSReloadClientCAs) }

func testServerTLSReloadClientCAs(t *testing.T) {
	dir := t.TempDir()
	srvCert := newTestCert(t, dir, "server")
	first := newTestCert(t, dir, "first")
	second := newTestCert(t, dir, "second")
	caFile := filepath.Join(dir, "clients.pem")
	copyFile(t, first.certFile, caFile)
	tlsOpts := &TLSOptions{CertFile: srvCert.certFile, KeyFile: srvCert.keyFile, ClientCAFiles: []string{caFile}}
	s, err := NewServer(ServerOptions{Engine: testEngine(t), Handler: NewTree(), TLS: tlsOpts})
	if err != nil {
		t.Fatal(err)
	}
	addr := startServer(t, s)
	handshake := func(client *tls.Certificate) error {
		t.Helper()
		pool := x509.NewCertPool()
		pool.AddCert(srvCert.cert)
		c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"},
			GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return client, nil }})
		if err != nil {
			return err
		}
		defer c.Close()
		if p := c.ConnectionState().NegotiatedProtocol; p != "http/1.1" {
			t.Errorf("ALPN %q, want http/1.1", p)
		}
		// TLS 1.3 refuses a client certificate after the client's
		// handshake is done: a read sees the alert.
		if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			return err
		}
		_, err = c.Read(make([]byte, 1))
		return err
	}
	check := func(when string, trusted, refused *tls.Certificate) {
		t.Helper()
		if err := handshake(trusted); err != nil {
			t.Errorf("%s: the trusted client: %v", when, err)
		}
		if handshake(refused) == nil {
			t.Errorf("%s: a client of another CA was let in", when)
		}
	}
	check("before Reload", &first.pair, &second.pair)

	copyFile(t, second.certFile, caFile)
	if err := tlsOpts.Reload(); err != nil {
		t.Fatal(err)
	}
	check("after Reload", &second.pair, &first.pair)

	if err := os.WriteFile(caFile, []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := tlsOpts.Reload(); !errors.Is(err, ErrTLS) {
		t.Errorf("Reload of a broken CA file: %v, want ErrTLS", err)
	}
	check("after a failed Reload", &second.pair, &first.pair)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
