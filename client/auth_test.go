package client_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// clientCert returns a self-signed client certificate.
func clientCert(t *testing.T) tls.Certificate {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, priv.Public(), priv)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: priv}
}

// TestAuthMethods joins with every authentication method the router
// offers, over a dialed connection: ticket, wampcra (plain and salted),
// cryptosign, tls (a client certificate in DialOptions.TLSConfig, over
// WebSocket and RawSocket) and anonymous.
func TestAuthMethods(t *testing.T) {
	key := ed25519.NewKeyFromSeed([]byte("0123456789abcdef0123456789abcdef"))
	cert := clientCert(t)
	tr := newTestRouter(t,
		auth.Ticket(map[string]auth.TicketPrincipal{"alice": {Ticket: "alice-ticket", Role: "user"}}),
		auth.WampCRA(map[string]auth.CRAUser{
			"bob":   {Secret: "bob-secret", Role: "user"},
			"carol": {Secret: "carol-pw", Role: "user", Salt: "salt123", Iterations: 100, KeyLen: 32},
		}),
		auth.Cryptosign(map[string]auth.CryptosignPrincipal{
			"dave": {AuthorizedKeys: []string{hex.EncodeToString(key.Public().(ed25519.PublicKey))}, Role: "user"},
		}),
		auth.TLS(map[string]auth.TLSPrincipal{"erin": {CertificateSHA1: auth.CertificateSHA1(cert.Certificate[0]), Role: "device"}}),
		auth.Anonymous("anonymous"),
	)
	withCert := client.DialOptions{TLSConfig: &tls.Config{RootCAs: tr.roots, Certificates: []tls.Certificate{cert}}}
	tests := []struct {
		name, scheme string
		opts         client.DialOptions
		cfg          client.Config
		authid       string
		method       string
	}{
		{"ticket", "ws", client.DialOptions{}, client.Config{AuthID: "alice", Auth: []client.Authenticator{client.Ticket("alice-ticket")}}, "alice", "ticket"},
		{"wampcra", "rs", client.DialOptions{}, client.Config{AuthID: "bob", Auth: []client.Authenticator{client.WampCRA("bob-secret")}}, "bob", "wampcra"},
		{"wampcra salted", "unix", client.DialOptions{}, client.Config{AuthID: "carol", Auth: []client.Authenticator{client.WampCRA("carol-pw")}}, "carol", "wampcra"},
		{"cryptosign", "ws+unix", client.DialOptions{}, client.Config{AuthID: "dave", Auth: []client.Authenticator{client.Cryptosign(key)}}, "dave", "cryptosign"},
		{"tls over wss", "wss", withCert, client.Config{Auth: []client.Authenticator{client.TLS()}}, "erin", "tls"},
		{"tls over rss", "rss", withCert, client.Config{Auth: []client.Authenticator{client.TLS()}}, "erin", "tls"},
		{"anonymous", "ws", client.DialOptions{}, client.Config{Auth: []client.Authenticator{client.Anonymous()}}, "", "anonymous"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Realm = realm
			s := join(t, tr.urls[tt.scheme], tt.opts, tt.cfg)
			d := s.Details()
			if d[wamp.KeyAuthMethod] != tt.method || (tt.authid != "" && d[wamp.KeyAuthID] != tt.authid) {
				t.Errorf("WELCOME details %v, want authmethod %s, authid %s", d, tt.method, tt.authid)
			}
		})
	}
}

// TestAuthTLSWithoutCertificate: offering tls without a certificate is
// refused by the router, with its reason.
func TestAuthTLSWithoutCertificate(t *testing.T) {
	tr := newTestRouter(t, auth.TLS(map[string]auth.TLSPrincipal{"erin": {CertificateSHA1: "00", Role: "device"}}))
	p, err := client.Dial(ctx(t), tr.urls["rss"], client.DialOptions{TLSConfig: &tls.Config{RootCAs: tr.roots}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Join(ctx(t), p, client.Config{Realm: realm, Auth: []client.Authenticator{client.TLS()}})
	if e, ok := errors.AsType[*wamp.RequestError](err); !ok || e.URI != wamp.ErrAuthenticationDenied {
		t.Errorf("Join: %v, want %s", err, wamp.ErrAuthenticationDenied)
	}
}
