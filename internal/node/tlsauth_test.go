package node

import (
	paho "github.com/eclipse/paho.mqtt.golang"

	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// testCA is a certificate authority that issues test certificates.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key}
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// clientCert issues a client certificate for cn.
func (ca *testCA) clientCert(t *testing.T, cn string) tls.Certificate {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn, Organization: []string{"Example"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// tlsMethod offers the "tls" authmethod: the certificate is the TLS
// connection's.
type tlsMethod struct{}

func (tlsMethod) Method() string       { return "tls" }
func (tlsMethod) AuthExtra() wamp.Dict { return nil }
func (tlsMethod) Respond(*wamp.Challenge) (string, wamp.Dict, error) {
	return "", nil, fmt.Errorf("tls has no challenge")
}

// tlsAuthNode starts a node whose TLS WebSocket path "ws" admits the
// principal of certificate fp by tls (static), path "dyn" asks
// com.example.tlsauth (registered by the caller over path "svc", ticket),
// both asking for client certificates of ca. It returns the address and
// the client TLS config without a certificate.
func tlsAuthNode(t *testing.T, ca *testCA, fp string) (string, *tls.Config) {
	t.Helper()
	dir := t.TempDir()
	pool := writeCert(t, dir)
	writePEM(t, filepath.Join(dir, "ca.crt"), "CERTIFICATE", ca.cert.Raw)
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "device", "allow-by-default": true}, {"name": "svc", "allow-by-default": true}]}],
		"transports": [{"type": "web",
			"endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0,
				"tls": {"key": "server.key", "certificate": "server.crt", "ca_certificates": ["ca.crt"]}},
			"paths": {
				"ws": {"type": "websocket", "auth": {"tls": {"type": "static", "principals": {
					"sensor-1": {"certificate-sha1": "` + fp + `", "role": "device"}}}}},
				"dyn": {"type": "websocket", "auth": {"tls": {"type": "dynamic", "authenticator": "com.example.tlsauth"}}},
				"svc": {"type": "websocket", "auth": {"ticket": {"type": "static", "principals": {
					"svc": {"ticket": "svc-secret", "role": "svc"}}}}}}}]}]}`
	n := start(t, parse(t, doc, nil), dir)
	return address(t, n, web0), &tls.Config{RootCAs: pool}
}

func withCert(c *tls.Config, cert *tls.Certificate) websocket.DialOptions {
	c = c.Clone()
	if cert != nil { // sent whatever CAs the server names
		c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert, nil }
	}
	return websocket.DialOptions{TLSConfig: c}
}

func TestTLSAuthStatic(t *testing.T) {
	ca := newTestCA(t, "junction test CA")
	good, other := ca.clientCert(t, "sensor-1"), ca.clientCert(t, "sensor-2")
	stranger := newTestCA(t, "other CA").clientCert(t, "sensor-1")
	addr, tc := tlsAuthNode(t, ca, auth.CertificateSHA1(good.Certificate[0]))
	url := "wss://" + addr + "/ws"
	cfg := client.Config{Realm: "realm1", Auth: []client.Authenticator{tlsMethod{}}}

	s := mustWS(t, url, withCert(tc, &good), cfg)
	if d := s.Details(); d["authid"] != "sensor-1" || d["authrole"] != "device" || d["authmethod"] != "tls" || d["authprovider"] != "static" {
		t.Errorf("WELCOME details = %v", d)
	}
	for name, cert := range map[string]*tls.Certificate{"not a principal": &other, "no certificate": nil} {
		_, err := joinWS(t, url, withCert(tc, cert), cfg)
		if wampURIOf(err) != wamp.ErrAuthenticationDenied {
			t.Errorf("%s: err = %v, want %s", name, err, wamp.ErrAuthenticationDenied)
		}
	}
	// A certificate of another CA fails the TLS handshake.
	if p, err := websocket.Dial(testCtx(t), url, withCert(tc, &stranger)); err == nil {
		p.Close()
		t.Error("other CA: dial succeeded, want a TLS failure")
	}
}

func TestTLSAuthDynamic(t *testing.T) {
	ca := newTestCA(t, "junction test CA")
	good := ca.clientCert(t, "sensor-9")
	addr, tc := tlsAuthNode(t, ca, auth.CertificateSHA1(good.Certificate[0]))
	svc := mustWS(t, "wss://"+addr+"/svc", withCert(tc, nil),
		client.Config{Realm: "realm1", AuthID: "svc", Auth: []client.Authenticator{client.Ticket("svc-secret")}})
	got := make(chan wamp.Dict, 2)
	authenticate := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		details, _ := wamp.AsDict(inv.Args[2])
		got <- details
		cert := dict(dict(details["transport"])["client_cert"])
		if cert == nil {
			return nil, &wamp.RequestError{URI: "com.example.no_cert", Args: wamp.List{"no certificate"}}
		}
		return &client.Result{Args: wamp.List{wamp.Dict{"authid": dict(cert["subject"])["cn"], "role": "device"}}}, nil
	}
	if _, err := svc.Register(testCtx(t), "com.example.tlsauth", authenticate, nil); err != nil {
		t.Fatal(err)
	}
	url := "wss://" + addr + "/dyn"
	cfg := client.Config{Realm: "realm1", Auth: []client.Authenticator{tlsMethod{}}}

	s := mustWS(t, url, withCert(tc, &good), cfg)
	if d := s.Details(); d["authid"] != "sensor-9" || d["authrole"] != "device" || d["authprovider"] != "dynamic" {
		t.Errorf("WELCOME details = %v", d)
	}
	d := <-got
	cert := dict(dict(d["transport"])["client_cert"])
	if d["authmethod"] != "tls" || cert["sha1"] != auth.CertificateSHA1(good.Certificate[0]) ||
		dict(cert["issuer"])["cn"] != "junction test CA" || dict(cert["subject"])["o"] != "Example" {
		t.Errorf("details = %v", d)
	}
	if _, err := joinWS(t, url, withCert(tc, nil), cfg); wampURIOf(err) != "com.example.no_cert" {
		t.Errorf("no certificate: err = %v, want com.example.no_cert", err)
	}
}

// TestMQTTTLSAuth: an MQTT client over TLS is admitted by its client
// certificate (tls authentication, as Crossbar 26 does); without one, a
// tls-only MQTT transport refuses it.
func TestMQTTTLSAuth(t *testing.T) {
	ca := newTestCA(t, "junction test CA")
	good := ca.clientCert(t, "sensor-1")
	dir := t.TempDir()
	pool := writeCert(t, dir)
	writePEM(t, filepath.Join(dir, "ca.crt"), "CERTIFICATE", ca.cert.Raw)
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "device", "allow-by-default": true}]}],
		"transports": [{"type": "mqtt",
			"endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0,
				"tls": {"key": "server.key", "certificate": "server.crt", "ca_certificates": ["ca.crt"]}},
			"options": {"realm": "realm1", "payload_mapping": {"": {"type": "native", "serializer": "json"}},
				"auth": {"tls": {"type": "static", "principals": {
					"sensor-1": {"certificate-sha1": "` + auth.CertificateSHA1(good.Certificate[0]) + `", "role": "device"}}}}}}]}]}`
	n := start(t, parse(t, doc, nil), dir)
	addr := address(t, n, "workers[0].transports[0]")
	connect := func(cert *tls.Certificate) error {
		tc := &tls.Config{RootCAs: pool}
		if cert != nil {
			tc.Certificates = []tls.Certificate{*cert}
		}
		o := paho.NewClientOptions().AddBroker("ssl://" + addr).SetClientID("c").SetTLSConfig(tc).
			SetProtocolVersion(4).SetAutoReconnect(false).SetConnectRetry(false).SetConnectTimeout(testTimeout)
		c := paho.NewClient(o)
		err := wait(c.Connect())
		if err == nil {
			c.Disconnect(0)
		}
		return err
	}
	if err := connect(&good); err != nil {
		t.Fatalf("with its certificate: %v", err)
	}
	if err := connect(nil); err == nil {
		t.Fatal("without a certificate: admitted by a tls-only transport")
	}
}
