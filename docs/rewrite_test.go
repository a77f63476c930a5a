package docs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/node"
)

// indexHTML is the index.html of every static directory in the tests.
const indexHTML = "<!doctype html><title>app</title>\n"

// rewriter makes an example runnable in a test: every TCP listener on
// 127.0.0.1 port 0, Unix sockets, static directories and TLS files in
// temporary directories. It fails the test on error.
type rewriter struct {
	t   *testing.T
	pki *testPKI // made on first use
	// ports maps the port a TCP transport had in the file to the
	// transport's path ("workers[0].transports[1]"), for connect.
	ports map[int]string
}

// rewrite rewrites cfg in place. The rewriter it returns holds the test CA
// when cfg has TLS listeners (else nil).
func rewrite(t *testing.T, cfg *config.Config) *rewriter {
	rw := &rewriter{t: t, ports: map[int]string{}}
	for i, w := range cfg.Workers {
		if rtr, ok := w.(*config.RouterWorker); ok {
			for j, tr := range rtr.Transports {
				rw.transport(fmt.Sprintf("workers[%d].transports[%d]", i, j), tr)
			}
		}
		if g, ok := w.(*config.GuestWorker); ok {
			rw.guest(g)
		}
	}
	return rw
}

func (rw *rewriter) transport(path string, tr config.Transport) {
	switch tr := tr.(type) {
	case *config.WebTransport:
		rw.endpoint(path, &tr.Endpoint)
		rw.paths(tr.Paths)
	case *config.WebSocketTransport:
		rw.endpoint(path, &tr.Endpoint)
	case *config.RawSocketTransport:
		rw.endpoint(path, &tr.Endpoint)
	default:
		rw.t.Fatalf("unknown transport %T", tr)
	}
}

func (rw *rewriter) endpoint(path string, e *config.ListenEndpoint) {
	switch e.Type {
	case "tcp":
		rw.ports[e.Port] = path
		e.Interface, e.Port, e.Version = "127.0.0.1", 0, 4
	case "unix":
		e.Path = filepath.Join(rw.t.TempDir(), "wamp.sock")
	}
	if e.TLS != nil {
		if rw.pki == nil {
			rw.pki = newTestPKI(rw.t)
		}
		e.TLS = &config.ServerTLS{Key: rw.pki.serverKey, Certificate: rw.pki.serverCert, CACertificates: []string{rw.pki.caCert}}
	}
}

func (rw *rewriter) paths(ps config.Paths) {
	for _, svc := range ps {
		switch svc := svc.(type) {
		case *config.StaticService:
			svc.Directory = rw.t.TempDir()
			writeFile(rw.t, filepath.Join(svc.Directory, "index.html"), []byte(indexHTML))
		case *config.PathTree:
			rw.paths(svc.Paths)
		}
	}
}

// connect points the TCP endpoints of cfg's container components that name
// a rewritten transport's port at that transport's real address, and the
// guests' addresses too (see connectGuest).
func (rw *rewriter) connect(cfg *config.Config, ls []node.Listener) {
	for _, w := range cfg.Workers {
		if g, ok := w.(*config.GuestWorker); ok {
			rw.connectGuest(g, ls)
		}
		c, ok := w.(*config.ContainerWorker)
		if !ok {
			continue
		}
		for _, comp := range c.Components {
			if e := &comp.Transport.Endpoint; e.Type == "tcp" {
				e.Host, e.Port = rw.listener(rw.ports[e.Port], ls)
			}
		}
	}
}

// listener returns the host and port of the listener of transport path.
func (rw *rewriter) listener(path string, ls []node.Listener) (string, int) {
	for _, l := range ls {
		if l.Transport == path {
			host, port, err := net.SplitHostPort(l.Address)
			if err != nil {
				rw.t.Fatal(err)
			}
			p, err := strconv.Atoi(port)
			if err != nil {
				rw.t.Fatal(err)
			}
			return host, p
		}
	}
	rw.t.Fatalf("no listener for transport %q in %+v", path, ls)
	return "", 0
}

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// testPKI is a CA and a server certificate for 127.0.0.1 that it signed,
// as PEM files.
type testPKI struct {
	ca                            *x509.Certificate
	caCert, serverCert, serverKey string // file names
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey := newKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "docs test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	ca := createCert(t, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	server := createCert(t, tmpl, ca, &key.PublicKey, caKey)
	p := &testPKI{ca: ca, caCert: filepath.Join(dir, "ca.crt"),
		serverCert: filepath.Join(dir, "server.crt"), serverKey: filepath.Join(dir, "server.key")}
	writeFile(t, p.caCert, pemBlock("CERTIFICATE", ca.Raw))
	writeFile(t, p.serverCert, pemBlock("CERTIFICATE", server.Raw))
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, p.serverKey, pemBlock("PRIVATE KEY", der))
	return p
}

// pool returns a pool holding the CA.
func (p *testPKI) pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(p.ca)
	return pool
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func createCert(t *testing.T, tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey) *x509.Certificate {
	t.Helper()
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
