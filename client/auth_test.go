package client_test

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/big"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// scramPrincipal derives a WAMP-SCRAM principal from password as
// autobahn's derive_scram_credential does.
func scramPrincipal(t *testing.T, kdf, password string, iterations, memory int) auth.ScramPrincipal {
	salt := []byte("0123456789abcdef")
	var salted []byte
	switch kdf {
	case auth.KDFArgon2id13:
		raw := argon2.IDKey([]byte(password), salt, uint32(iterations), uint32(memory), 1, 32)
		salted = []byte(base64.RawStdEncoding.EncodeToString(raw))
	case auth.KDFPBKDF2:
		var err error
		if salted, err = pbkdf2.Key(sha256.New, password, salt, iterations, 32); err != nil {
			t.Fatal(err)
		}
	}
	mac := func(key []byte, msg string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(msg))
		return m.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	return auth.ScramPrincipal{KDF: kdf, Iterations: iterations, Memory: memory, Salt: salt,
		StoredKey: stored[:], ServerKey: mac(salted, "Server Key"), Role: "user"}
}

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
// cryptosign, scram (both kdfs), tls (a client certificate in DialOptions.TLSConfig, over
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
		auth.Scram(map[string]auth.ScramPrincipal{
			"frank": scramPrincipal(t, auth.KDFArgon2id13, "frank-pw", 2, 64),
			"grace": scramPrincipal(t, auth.KDFPBKDF2, "grace-pw", 100, 0),
		}),
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
		{"scram argon2id-13", "ws", client.DialOptions{}, client.Config{AuthID: "frank", Auth: []client.Authenticator{client.Scram("frank-pw")}}, "frank", "scram"},
		{"scram pbkdf2", "rs", client.DialOptions{}, client.Config{AuthID: "grace", Auth: []client.Authenticator{client.Scram("grace-pw")}}, "grace", "scram"},
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

// TestAuthScramWrongPassword: the router refuses a wrong SCRAM password.
func TestAuthScramWrongPassword(t *testing.T) {
	tr := newTestRouter(t, auth.Scram(map[string]auth.ScramPrincipal{"grace": scramPrincipal(t, auth.KDFPBKDF2, "grace-pw", 100, 0)}))
	p, err := client.Dial(ctx(t), tr.urls["ws"], client.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Join(ctx(t), p, client.Config{Realm: realm, AuthID: "grace", Auth: []client.Authenticator{client.Scram("nope")}})
	if e, ok := errors.AsType[*wamp.RequestError](err); !ok || e.URI != wamp.ErrAuthenticationDenied {
		t.Errorf("Join: %v, want %s", err, wamp.ErrAuthenticationDenied)
	}
}
