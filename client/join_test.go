package client

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func TestJoinAnonymous(t *testing.T) {
	r, ch := startJoin(context.Background(), t, Config{Realm: "realm1", AuthID: "alice",
		HelloDetails: wamp.Dict{"agent": "test-agent", "x": 1}})
	hello := expect[*wamp.Hello](r)
	if hello.Realm != "realm1" {
		t.Errorf("realm %q", hello.Realm)
	}
	if hello.Details["authid"] != "alice" || hello.Details["agent"] != "test-agent" || hello.Details["x"] != 1 {
		t.Errorf("details %v", hello.Details)
	}
	if _, ok := hello.Details["authmethods"]; ok {
		t.Errorf("anonymous HELLO has authmethods: %v", hello.Details)
	}
	roles, _ := hello.Details["roles"].(wamp.Dict)
	for _, role := range []string{"caller", "callee", "publisher", "subscriber"} {
		if _, ok := roles[role]; !ok {
			t.Errorf("role %s not announced: %v", role, roles)
		}
	}
	callee, _ := roles["callee"].(wamp.Dict)
	if f, _ := callee["features"].(wamp.Dict); f["call_canceling"] != true || f["progressive_call_results"] != true {
		t.Errorf("callee features %v", callee)
	}
	r.send(&wamp.Welcome{Session: 42, Details: wamp.Dict{"authrole": "anonymous"}})
	s, err := wait(t, ch)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID() != 42 || s.Details()["authrole"] != "anonymous" || s.Err() != nil {
		t.Errorf("session %d %v %v", s.ID(), s.Details(), s.Err())
	}
}

// Expected signatures are computed here independently of the auth package.
func craSign(key, challenge string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(challenge))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func craKey(t *testing.T, secret, salt string, iterations, keyLen int) string {
	k, err := pbkdf2.Key(sha256.New, secret, []byte(salt), iterations, keyLen)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(k)
}

func TestJoinChallenge(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	challenge32 := hex.EncodeToString(make([]byte, 32))
	craChallenge := `{"nonce":"abc","authid":"bob","session":7}`
	tests := []struct {
		name      string
		auth      Authenticator
		challenge wamp.Dict
		check     func(t *testing.T, hello *wamp.Hello, a *wamp.Authenticate)
	}{
		{"ticket", Ticket("s3cret"), wamp.Dict{}, func(t *testing.T, _ *wamp.Hello, a *wamp.Authenticate) {
			if a.Signature != "s3cret" {
				t.Errorf("signature %q", a.Signature)
			}
		}},
		{"wampcra", WampCRA("secret1"), wamp.Dict{"challenge": craChallenge},
			func(t *testing.T, _ *wamp.Hello, a *wamp.Authenticate) {
				if want := craSign("secret1", craChallenge); a.Signature != want {
					t.Errorf("signature %q, want %q", a.Signature, want)
				}
			}},
		{"wampcra salted", WampCRA("secret1"),
			wamp.Dict{"challenge": craChallenge, "salt": "salt123", "iterations": uint64(100), "keylen": float64(16)},
			func(t *testing.T, _ *wamp.Hello, a *wamp.Authenticate) {
				want := craSign(craKey(t, "secret1", "salt123", 100, 16), craChallenge)
				if a.Signature != want {
					t.Errorf("signature %q, want %q", a.Signature, want)
				}
			}},
		{"wampcra salted defaults", WampCRA("secret1"), wamp.Dict{"challenge": craChallenge, "salt": "s"},
			func(t *testing.T, _ *wamp.Hello, a *wamp.Authenticate) {
				if want := craSign(craKey(t, "secret1", "s", 1000, 32), craChallenge); a.Signature != want {
					t.Errorf("signature %q, want %q", a.Signature, want)
				}
			}},
		{"cryptosign", Cryptosign(priv), wamp.Dict{"challenge": challenge32},
			func(t *testing.T, hello *wamp.Hello, a *wamp.Authenticate) {
				extra, _ := hello.Details["authextra"].(wamp.Dict)
				if extra["pubkey"] != hex.EncodeToString(pub) {
					t.Errorf("authextra %v", extra)
				}
				sig, err := hex.DecodeString(a.Signature)
				if err != nil || len(sig) != 96 || !ed25519.Verify(pub, make([]byte, 32), sig[:64]) {
					t.Errorf("bad signature %q (%v)", a.Signature, err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ch := startJoin(context.Background(), t, Config{Realm: "r", AuthID: "bob",
				Auth: []Authenticator{otherAuth{}, tt.auth}})
			hello := expect[*wamp.Hello](r)
			methods, _ := hello.Details["authmethods"].(wamp.List)
			if len(methods) != 2 || methods[1] != tt.auth.Method() {
				t.Errorf("authmethods %v", methods)
			}
			r.send(&wamp.Challenge{AuthMethod: tt.auth.Method(), Extra: tt.challenge})
			tt.check(t, hello, expect[*wamp.Authenticate](r))
			r.send(&wamp.Welcome{Session: 1, Details: wamp.Dict{}})
			if _, err := wait(t, ch); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestJoinRefused(t *testing.T) {
	tests := []struct {
		name    string
		auth    []Authenticator
		router  wamp.Message
		wantURI wamp.URI // the URI of the error Join returns; "" for none
		abort   wamp.URI // the reason of the ABORT the client sends; "" for none
		wantErr error
	}{
		{name: "abort", router: &wamp.Abort{Details: wamp.Dict{"message": "no"}, Reason: wamp.ErrNoSuchRealm},
			wantURI: wamp.ErrNoSuchRealm},
		{name: "challenge not offered", router: &wamp.Challenge{AuthMethod: "wampcra", Extra: wamp.Dict{}},
			abort: wamp.ErrAuthenticationFailed, wantErr: ErrNoAuthenticator},
		{name: "bad challenge", auth: []Authenticator{WampCRA("x")},
			router: &wamp.Challenge{AuthMethod: "wampcra", Extra: wamp.Dict{"challenge": 5}},
			abort:  wamp.ErrAuthenticationFailed},
		{name: "bad iterations", auth: []Authenticator{WampCRA("x")},
			router: &wamp.Challenge{AuthMethod: "wampcra", Extra: wamp.Dict{"challenge": "c", "salt": "s", "iterations": -1}},
			abort:  wamp.ErrAuthenticationFailed},
		{name: "bad cryptosign challenge", auth: []Authenticator{Cryptosign(make(ed25519.PrivateKey, ed25519.PrivateKeySize))},
			router: &wamp.Challenge{AuthMethod: "cryptosign", Extra: wamp.Dict{"challenge": "zz"}},
			abort:  wamp.ErrAuthenticationFailed},
		{name: "protocol violation", router: &wamp.Event{Subscription: 1, Publication: 1},
			abort: wamp.ErrProtocolViolation, wantURI: wamp.ErrProtocolViolation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ch := startJoin(context.Background(), t, Config{Realm: "r", Auth: tt.auth})
			expect[*wamp.Hello](r)
			r.send(tt.router)
			if tt.abort != "" {
				if a := expect[*wamp.Abort](r); a.Reason != tt.abort {
					t.Errorf("client aborted with %s, want %s", a.Reason, tt.abort)
				}
			}
			_, err := wait(t, ch)
			if err == nil {
				t.Fatal("Join succeeded")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err %v, want %v", err, tt.wantErr)
			}
			if tt.wantURI != "" {
				if re, ok := errors.AsType[*wamp.RequestError](err); !ok || re.URI != tt.wantURI {
					t.Errorf("err %v, want URI %s", err, tt.wantURI)
				}
			}
			if !r.closed() {
				t.Error("peer not closed after a failed join")
			}
		})
	}
}

func TestJoinContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r, ch := startJoin(ctx, t, Config{Realm: "r"})
	expect[*wamp.Hello](r)
	cancel()
	if _, err := wait(t, ch); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if !r.closed() {
		t.Error("peer not closed")
	}
}

// otherAuth is a method offered first that the router does not pick.
type otherAuth struct{}

func (otherAuth) Method() string       { return "other" }
func (otherAuth) AuthExtra() wamp.Dict { return wamp.Dict{"other": true} }
func (otherAuth) Respond(*wamp.Challenge) (string, wamp.Dict, error) {
	return "", nil, errors.New("other: must not be asked")
}
