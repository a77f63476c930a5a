package node

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// writeCert writes a self-signed certificate for 127.0.0.1 and its key to
// dir/server.crt and dir/server.key, and returns a pool trusting it.
func writeCert(t *testing.T, dir string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "junction test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "server.crt"), "CERTIFICATE", der)
	writePEM(t, filepath.Join(dir, "server.key"), "EC PRIVATE KEY", kder)
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

func writePEM(t *testing.T, name, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(name, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestTLSWebTransport(t *testing.T) {
	dir := t.TempDir()
	pool := writeCert(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, "web"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "web", "hello.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Relative file names: resolved against the node directory.
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web",
			"endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0,
				"tls": {"key": "server.key", "certificate": "server.crt"}},
			"options": {"hsts": true},
			"paths": {"static": {"type": "static", "directory": "web"}, "ws": {"type": "websocket"}}}]}]}`, nil)
	n := start(t, cfg, dir)
	addr := address(t, n, web0)
	tlsConfig := &tls.Config{RootCAs: pool}

	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Get("https://" + addr + "/static/hello.txt")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "hello" || resp.Header.Get("Strict-Transport-Security") == "" {
		t.Errorf("GET static = %d %q, HSTS %q", resp.StatusCode, body, resp.Header.Get("Strict-Transport-Security"))
	}

	s := mustWS(t, "wss://"+addr+"/ws", websocket.DialOptions{TLSConfig: tlsConfig}, client.Config{Realm: "realm1"})
	echo(t, s, "com.example.echo")
	callEcho(t, s, "com.example.echo")
}
