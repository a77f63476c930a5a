package web

import (
	"bytes"
	"crypto/tls"
	"errors"
	"os"
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
