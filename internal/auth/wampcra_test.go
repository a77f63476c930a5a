package auth

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// Known vectors, computed with Python's hashlib and hmac exactly as
// autobahn's derive_key and compute_wcs do.
const (
	vecChallenge = `{"authid":"client2","authrole":"frontend","authmethod":"wampcra","authprovider":"static","session":42,"nonce":"abc","timestamp":"2024-01-02T03:04:05.678Z"}`
	// DeriveKey("secret123", "salt123", 100, 16)
	vecKey100x16 = "DpHHRlQ6UNULJlP9J8WkPw=="
	// DeriveKey("secret123", "salt123", 1000, 32): the defaults
	vecKeyDefault = "Eu7CQLfR+/Ffb+275A4s9/6H/RGKYxM4s6IMrsNKzC8="
	// SignWampCRA(vecKey100x16, vecChallenge)
	vecSigSalted = "SHslyzF5sRbH1fPyw3VD5SCBn8bvWiScxslmvLS21xY="
	// SignWampCRA("secret123", vecChallenge)
	vecSigPlain = "zoR52zVrUozOdKrUdcBKbR661Cm1t6F3CJzSXYcOUcg="
)

func TestDeriveKeyAndSignVectors(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"derive 100x16", DeriveKey("secret123", "salt123", 100, 16), vecKey100x16},
		{"derive defaults", DeriveKey("secret123", "salt123", 0, 0), vecKeyDefault},
		{"derive explicit defaults", DeriveKey("secret123", "salt123", 1000, 32), vecKeyDefault},
		{"sign salted", SignWampCRA(vecKey100x16, vecChallenge), vecSigSalted},
		{"sign plain", SignWampCRA("secret123", vecChallenge), vecSigPlain},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func craUsers() map[string]CRAUser {
	return map[string]CRAUser{
		"client1": {Secret: "secret123", Role: "frontend"},
		"client2": {Secret: "secret123", Role: "frontend", Salt: "salt123", Iterations: 100, KeyLen: 16},
		"client3": {Secret: "secret123", Role: "backend", Salt: "salt123"},
		// a Crossbar-era config that stores the derived key as the secret
		"legacy": {Secret: vecKey100x16, Role: "frontend", Salt: "salt123", Iterations: 100, KeyLen: 16},
		"nopass": {Role: "frontend"},
	}
}

// autobahnSign answers a wampcra CHALLENGE as autobahn's AuthWampCra does.
func autobahnSign(t *testing.T, m *wamp.Challenge, secret string) string {
	t.Helper()
	key := secret
	if salt, ok := m.Extra["salt"].(string); ok {
		key = DeriveKey(secret, salt, m.Extra["iterations"].(int), m.Extra["keylen"].(int))
	}
	return SignWampCRA(key, m.Extra["challenge"].(string))
}

func TestWampCRA(t *testing.T) {
	a := WampCRA(craUsers())
	tests := []struct {
		name, authid, secret, role string
		startErr, verifyErr        wamp.URI
	}{
		{name: "plain", authid: "client1", secret: "secret123", role: "frontend"},
		{name: "salted", authid: "client2", secret: "secret123", role: "frontend"},
		{name: "salted defaults", authid: "client3", secret: "secret123", role: "backend"},
		{name: "salted legacy config", authid: "legacy", secret: "secret123", role: "frontend"},
		{name: "wrong secret", authid: "client1", secret: "secret124", verifyErr: wamp.ErrAuthenticationDenied},
		{name: "wrong salted secret", authid: "client2", secret: "secret124", verifyErr: wamp.ErrAuthenticationDenied},
		{name: "empty configured secret", authid: "nopass", secret: "", verifyErr: wamp.ErrAuthenticationDenied},
		{name: "unknown authid", authid: "mallory", secret: "secret123", verifyErr: wamp.ErrAuthenticationDenied},
		{name: "missing authid", startErr: wamp.ErrAuthenticationDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &Request{AuthID: tt.authid, Session: 42}
			if tt.startErr != "" {
				_, _, err := a.Start(req)
				wantRefusal(t, err, tt.startErr)
				return
			}
			ch := start(t, a, req)
			id, err := ch.Verify(&wamp.Authenticate{Signature: autobahnSign(t, ch.Message(), tt.secret)})
			if tt.verifyErr != "" {
				wantRefusal(t, err, tt.verifyErr)
				return
			}
			wantIdentity(t, id, err, Identity{AuthID: tt.authid, AuthRole: tt.role, AuthMethod: "wampcra", AuthProvider: "static"})
		})
	}
}

func TestWampCRAKnownVector(t *testing.T) {
	a := WampCRA(craUsers())
	for _, tt := range []struct{ authid, sig string }{
		{"client1", vecSigPlain}, {"client2", vecSigSalted}, {"legacy", vecSigSalted},
	} {
		ch := start(t, a, &Request{AuthID: tt.authid})
		ch.(*craChallenge).challenge = vecChallenge
		_, err := ch.Verify(&wamp.Authenticate{Signature: tt.sig})
		if err != nil {
			t.Errorf("%s: Verify(known vector): %v", tt.authid, err)
		}
	}
}

func TestWampCRAChallengeContent(t *testing.T) {
	w := WampCRA(craUsers()).(*wampCRA)
	w.now = func() time.Time { return time.Date(2024, 1, 2, 4, 4, 5, 678_900_000, time.FixedZone("CET", 3600)) }
	msg := start(t, w, &Request{AuthID: "client2", Session: 1 << 52}).Message()
	if msg.Extra["salt"] != "salt123" || msg.Extra["iterations"] != 100 || msg.Extra["keylen"] != 16 {
		t.Fatalf("extra = %v, want salt, iterations and keylen", msg.Extra)
	}
	var c map[string]any
	d := json.NewDecoder(strings.NewReader(msg.Extra["challenge"].(string)))
	d.UseNumber()
	if err := d.Decode(&c); err != nil {
		t.Fatalf("challenge is not JSON: %v", err)
	}
	want := map[string]any{
		"authid": "client2", "authrole": "frontend", "authmethod": "wampcra",
		"authprovider": "static", "session": json.Number("4503599627370496"),
		"timestamp": "2024-01-02T03:04:05.678Z",
	}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("challenge[%s] = %v, want %v", k, c[k], v)
		}
	}
	if n, _ := c["nonce"].(string); !regexp.MustCompile(`^[A-Z2-7]{40,}$`).MatchString(n) {
		t.Errorf("nonce = %q", n)
	}
	unsalted := start(t, w, &Request{AuthID: "client1"}).Message()
	if len(unsalted.Extra) != 1 {
		t.Errorf("unsalted extra = %v, want only challenge", unsalted.Extra)
	}
	defaults := start(t, w, &Request{AuthID: "client3"}).Message()
	if defaults.Extra["iterations"] != 1000 || defaults.Extra["keylen"] != 32 {
		t.Errorf("default extra = %v, want iterations 1000, keylen 32", defaults.Extra)
	}
}

func TestWampCRANoncesDiffer(t *testing.T) {
	a := WampCRA(craUsers())
	c1 := start(t, a, &Request{AuthID: "client1"}).Message().Extra["challenge"]
	c2 := start(t, a, &Request{AuthID: "client1"}).Message().Extra["challenge"]
	if c1 == c2 {
		t.Fatal("two challenges are equal")
	}
}
