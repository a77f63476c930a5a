package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // the fingerprint under test
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

func testCert(t *testing.T) *x509.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(77), Subject: pkix.Name{CommonName: "sensor-1", Country: []string{"DE"}},
		NotBefore: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), NotAfter: time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC),
		BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return c
}

func TestTLSStatic(t *testing.T) {
	cert := testCert(t)
	fp := CertificateSHA1(cert.Raw)
	sum := sha1.Sum(cert.Raw) //nolint:gosec
	if want := strings.ToUpper(strings.Join(strings.Fields(fmt.Sprintf("% x", sum[:])), ":")); fp != want {
		t.Fatalf("fingerprint %s, want %s", fp, want)
	}
	a := TLS(map[string]TLSPrincipal{"sensor": {CertificateSHA1: fp, Role: "device"}})
	req := helloRequest("", nil)
	req.Peer.TLS, req.Peer.ClientCert = true, cert
	id, ch, err := a.Start(req)
	if err != nil || ch != nil || id.AuthID != "sensor" || id.AuthRole != "device" || id.AuthMethod != "tls" || id.AuthProvider != "static" {
		t.Errorf("Start = %+v, %v, %v", id, ch, err)
	}
	req.Peer.ClientCert = nil
	if _, _, err := a.Start(req); err == nil || !strings.Contains(err.Error(), "did not send a TLS client certificate") {
		t.Errorf("no certificate: %v", err)
	}
}

func TestCertDetails(t *testing.T) {
	cert := testCert(t)
	d := transportDetails(wamp.PeerInfo{Transport: "rawsocket", TLS: true, ClientCert: cert})["client_cert"].(wamp.Dict)
	if d["sha1"] != CertificateSHA1(cert.Raw) || d["serial"] != int64(77) || d["version"] != int64(2) ||
		d["not_before"] != "20260102030405Z" || d["subject"].(wamp.Dict)["cn"] != "sensor-1" || d["issuer"].(wamp.Dict)["c"] != "DE" ||
		len(d["sha256"].(string)) != 32*3-1 || len(d["md5"].(string)) != 16*3-1 {
		t.Errorf("client_cert = %v", d)
	}
	exts := d["extensions"].(wamp.List)
	if len(exts) == 0 || exts[0].(wamp.Dict)["name"] != "basicConstraints" {
		t.Errorf("extensions = %v", exts)
	}
	if v, ok := transportDetails(wamp.PeerInfo{Transport: "rawsocket", TLS: true})["client_cert"]; !ok || v != nil {
		t.Errorf("client_cert without a certificate = %v, %v", v, ok)
	}
}
