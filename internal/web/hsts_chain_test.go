package web

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHSTSMaxAge(t *testing.T) {
	tests := []struct {
		name string
		opts ServerOptions
		want string
	}{
		{"default", ServerOptions{HSTS: true}, "max-age=31536000"},
		{"unset zero", ServerOptions{HSTS: true, HSTSMaxAge: 0}, "max-age=31536000"},
		{"set zero", ServerOptions{HSTS: true, HSTSMaxAge: 0, HSTSMaxAgeSet: true}, "max-age=0"},
		{"set", ServerOptions{HSTS: true, HSTSMaxAge: 60, HSTSMaxAgeSet: true}, "max-age=60"},
		{"off", ServerOptions{HSTSMaxAge: 60, HSTSMaxAgeSet: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Handler = http.NotFoundHandler()
			h, err := wrapHandler(tt.opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest("GET", "https://example.com/", nil)
			r.TLS = &tls.ConnectionState{}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if got := rec.Header().Get("Strict-Transport-Security"); got != tt.want {
				t.Errorf("Strict-Transport-Security %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAppendChain(t *testing.T) {
	dir := t.TempDir()
	leaf := newTestCert(t, dir, "leaf")
	inter1 := newTestCert(t, dir, "inter1")
	inter2 := newTestCert(t, dir, "inter2")
	both := filepath.Join(dir, "both.pem")
	b1, _ := os.ReadFile(inter1.certFile)
	b2, _ := os.ReadFile(inter2.certFile)
	if err := os.WriteFile(both, append(b1, b2...), 0o600); err != nil {
		t.Fatal(err)
	}
	cert := leaf.pair
	if err := appendChain(&cert, []string{inter2.certFile, both}); err != nil {
		t.Fatal(err)
	}
	want := [][]byte{leaf.cert.Raw, inter2.cert.Raw, inter1.cert.Raw, inter2.cert.Raw}
	if len(cert.Certificate) != len(want) {
		t.Fatalf("chain has %d certificates, want %d", len(cert.Certificate), len(want))
	}
	for i := range want {
		if string(cert.Certificate[i]) != string(want[i]) {
			t.Errorf("certificate %d is not the expected one", i)
		}
	}
	if err := appendChain(&cert, []string{leaf.keyFile}); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("key file as chain: %v, want no PEM certificate", err)
	}
	if err := appendChain(&cert, []string{filepath.Join(dir, "missing.pem")}); err == nil {
		t.Error("missing chain file: no error")
	}
}

func TestServerChainFiles(t *testing.T) { onEngines(t, testServerChainFiles) }

func testServerChainFiles(t *testing.T) {
	dir := t.TempDir()
	srv := newTestCert(t, dir, "server")
	inter := newTestCert(t, dir, "inter")
	s, err := NewServer(ServerOptions{Engine: testEngine(t), Handler: http.NotFoundHandler(),
		TLS: &TLSOptions{CertFile: srv.certFile, KeyFile: srv.keyFile, ChainFiles: []string{inter.certFile}}})
	if err != nil {
		t.Fatal(err)
	}
	addr := startServer(t, s)
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	peer := c.ConnectionState().PeerCertificates
	if len(peer) != 2 || !peer[1].Equal(inter.cert) {
		t.Errorf("server sent %d certificates, want the certificate then the chain", len(peer))
	}
}

// TestLoadKeyPairNamesTheFile: each error of LoadKeyPair names the file at
// fault, both when the key does not match the certificate.
func TestLoadKeyPairNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	a, b := newTestCert(t, dir, "a"), newTestCert(t, dir, "b")
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a PEM file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	tests := []struct {
		name      string
		cert, key string
		want      []string // substrings of the error; none: it loads
	}{
		{"good", a.certFile, a.keyFile, nil},
		{"certificate missing", missing, a.keyFile, []string{"certificate: open " + missing}},
		{"key missing", a.certFile, missing, []string{"key: open " + missing}},
		{"certificate not PEM", garbage, a.keyFile, []string{"certificate " + garbage + ": no PEM data"}},
		{"key not PEM", a.certFile, garbage, []string{"key " + garbage + ": no PEM data"}},
		{"key of another certificate", a.certFile, b.keyFile, []string{"certificate " + a.certFile, "key " + b.keyFile}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadKeyPair(tt.cert, tt.key)
			if (err == nil) != (tt.want == nil) {
				t.Fatalf("LoadKeyPair = %v, want an error: %v", err, tt.want != nil)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
