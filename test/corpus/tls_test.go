package corpus_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha1"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// certAuthority issues the certificates of tls-client-cert.
type certAuthority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// issued is a certificate and its key, PEM encoded.
type issued struct {
	cert, key []byte
	der       []byte
}

// issue makes a certificate from tmpl signed by ca, or self-signed when ca
// is nil.
func issue(t *testing.T, ca *certAuthority, tmpl *x509.Certificate) (*certAuthority, issued) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, big.NewInt(1<<62)); err != nil {
		t.Fatal(err)
	}
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	parent, signer := tmpl, key
	if ca != nil {
		parent, signer = ca.cert, ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return &certAuthority{cert, key}, issued{
		cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		key:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
		der:  der,
	}
}

func newCA(t *testing.T, name string) (*certAuthority, issued) {
	return issue(t, nil, &x509.Certificate{Subject: pkix.Name{CommonName: name}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign})
}

func clientCert(t *testing.T, ca *certAuthority, cn string) issued {
	_, c := issue(t, ca, &x509.Certificate{Subject: pkix.Name{CommonName: cn, Organization: []string{"Example"}},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	return c
}

// tlsClientCerts makes tls-client-cert's certificates, none of them
// committed: the node's (for localhost and 127.0.0.1, by a node CA) and
// the CA of its clients in .crossbar; the node CA and the clients'
// certificates and keys in certs/ for client.py: sensor-1 (the static
// principal), sensor-2 and printer-1 by the clients' CA, and "intruder"
// by a CA the node does not trust (its subject also sensor-1). It passes
// sensor-1's SHA-1 fingerprint, as Crossbar writes it, as SENSOR1_SHA1.
func tlsClientCerts(t *testing.T, dir string) []string {
	nodeCA, nodeCAPEM := newCA(t, "Example Node CA")
	_, server := issue(t, nodeCA, &x509.Certificate{Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	devicesCA, devicesCAPEM := newCA(t, "Example Devices CA")
	intruderCA, _ := newCA(t, "Intruder CA")
	files := map[string][]byte{
		".crossbar/server.crt":     server.cert,
		".crossbar/server.key":     server.key,
		".crossbar/clients-ca.crt": devicesCAPEM.cert,
		"certs/server-ca.crt":      nodeCAPEM.cert,
	}
	clients := map[string]issued{
		"sensor-1":  clientCert(t, devicesCA, "sensor-1"),
		"sensor-2":  clientCert(t, devicesCA, "sensor-2"),
		"printer-1": clientCert(t, devicesCA, "printer-1"),
		"intruder":  clientCert(t, intruderCA, "sensor-1"),
	}
	for name, c := range clients {
		files["certs/"+name+".crt"], files["certs/"+name+".key"] = c.cert, c.key
	}
	for name, b := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"SENSOR1_SHA1=" + crossbarFingerprint(clients["sensor-1"].der)}
}

// crossbarFingerprint is the SHA-1 of a DER certificate as Crossbar's
// config has it: upper-case hex bytes joined by colons.
func crossbarFingerprint(der []byte) string {
	sum := sha1.Sum(der)
	hex := make([]string, len(sum))
	for i, b := range sum {
		hex[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(hex, ":")
}
