package client

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// scramServer is the router's side of one SCRAM exchange, written here
// from the WAMP-SCRAM description, apart from the client's code (the
// real router's is checked in TestScramRouter).
type scramServer struct {
	salted                   []byte
	clientNonce, serverNonce string
	salt                     string
}

// challenge answers hello's nonce with a pbkdf2 challenge.
func (s *scramServer) challenge(t *testing.T, hello *wamp.Hello) *wamp.Challenge {
	extra, _ := hello.Details["authextra"].(wamp.Dict)
	s.clientNonce, _ = extra["nonce"].(string)
	raw, err := base64.StdEncoding.DecodeString(s.clientNonce)
	if err != nil || len(raw) < 16 {
		t.Fatalf("HELLO nonce %q", s.clientNonce)
	}
	s.serverNonce = base64.StdEncoding.EncodeToString(append(raw, []byte("0123456789abcdef")...))
	s.salt = base64.StdEncoding.EncodeToString([]byte("pepper"))
	if s.salted, err = pbkdf2.Key(sha256.New, "pw", []byte("pepper"), 10, 32); err != nil {
		t.Fatal(err)
	}
	return &wamp.Challenge{AuthMethod: "scram", Extra: wamp.Dict{"nonce": s.serverNonce, "kdf": "pbkdf2",
		"salt": s.salt, "iterations": int64(10), "memory": int64(0)}}
}

func (s *scramServer) authMessage(authid string) string {
	return "n=" + authid + ",r=" + s.clientNonce + ",r=" + s.serverNonce + ",s=" + s.salt + ",i=10,c=,r=" + s.serverNonce
}

// verify checks a proof as a router does, and returns the server
// signature.
func (s *scramServer) verify(t *testing.T, authid string, a *wamp.Authenticate) string {
	msg := s.authMessage(authid)
	clientKey := mac(s.salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	want := mac(stored[:], msg)
	for i := range want {
		want[i] ^= clientKey[i]
	}
	if a.Signature != base64.StdEncoding.EncodeToString(want) {
		t.Errorf("proof %q, want %q", a.Signature, base64.StdEncoding.EncodeToString(want))
	}
	return base64.StdEncoding.EncodeToString(mac(mac(s.salted, "Server Key"), msg))
}

func mac(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// extend returns the base64 nonce n with bytes appended, as a router's.
func extend(n string) string {
	raw, _ := base64.StdEncoding.DecodeString(n)
	return base64.StdEncoding.EncodeToString(append(raw, 1, 2, 3))
}

// TestScramJoin: the proof is the one the router computes; the router's
// signature in WELCOME is checked, and a missing or wrong one fails Join;
// each join sends a fresh nonce.
func TestScramJoin(t *testing.T) {
	tests := []struct {
		name    string
		welcome func(sig string) wamp.Dict
		wantErr string
	}{
		{"good signature", func(sig string) wamp.Dict {
			return wamp.Dict{"authmethod": "scram", "authextra": wamp.Dict{"scram_server_signature": sig}}
		}, ""},
		{"wrong signature", func(string) wamp.Dict {
			return wamp.Dict{"authmethod": "scram", "authextra": wamp.Dict{"scram_server_signature": "AAAA"}}
		}, "server signature is missing or wrong"},
		{"no signature", func(string) wamp.Dict { return wamp.Dict{"authmethod": "scram"} }, "server signature is missing or wrong"},
	}
	a := Scram("pw")
	nonces := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ch := startJoin(context.Background(), t, Config{Realm: "r", AuthID: "alice", Auth: []Authenticator{a}})
			hello := expect[*wamp.Hello](r)
			if m := hello.Details["authmethods"].(wamp.List); len(m) != 1 || m[0] != "scram" {
				t.Errorf("authmethods %v", m)
			}
			var srv scramServer
			r.send(srv.challenge(t, hello))
			if nonces[srv.clientNonce] {
				t.Errorf("nonce %s sent twice", srv.clientNonce)
			}
			nonces[srv.clientNonce] = true
			sig := srv.verify(t, "alice", expect[*wamp.Authenticate](r))
			r.send(&wamp.Welcome{Session: 1, Details: tt.welcome(sig)})
			_, err := wait(t, ch)
			if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Join: %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestScramBadChallenge: a challenge the client cannot or must not answer
// aborts the join with its reason.
func TestScramBadChallenge(t *testing.T) {
	tests := []struct {
		name   string
		authid string
		extra  func(nonce string) wamp.Dict
		want   string
	}{
		{"no authid", "", func(n string) wamp.Dict { return wamp.Dict{} }, "Config.AuthID is empty"},
		{"nonce not ours", "a", func(string) wamp.Dict {
			return wamp.Dict{"nonce": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "kdf": "pbkdf2", "salt": "AA==", "iterations": int64(1)}
		}, "does not extend ours"},
		{"nonce not extended", "a", func(n string) wamp.Dict {
			return wamp.Dict{"nonce": n, "kdf": "pbkdf2", "salt": "AA==", "iterations": int64(1)}
		}, "does not extend ours"},
		{"unknown kdf", "a", func(n string) wamp.Dict {
			return wamp.Dict{"nonce": extend(n), "kdf": "md5", "salt": "AA==", "iterations": int64(1)}
		}, `unknown kdf "md5"`},
		{"huge memory", "a", func(n string) wamp.Dict {
			return wamp.Dict{"nonce": n, "kdf": "argon2id-13", "salt": "AA==", "iterations": int64(1), "memory": int64(1 << 30)}
		}, "memory 1073741824"},
		{"no iterations", "a", func(n string) wamp.Dict {
			return wamp.Dict{"nonce": n, "kdf": "pbkdf2", "salt": "AA=="}
		}, "iterations <nil>"},
		{"bad salt", "a", func(n string) wamp.Dict {
			return wamp.Dict{"nonce": n, "kdf": "pbkdf2", "salt": "!", "iterations": int64(1)}
		}, "salt must be base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ch := startJoin(context.Background(), t, Config{Realm: "r", AuthID: tt.authid, Auth: []Authenticator{Scram("pw")}})
			hello := expect[*wamp.Hello](r)
			extra, _ := hello.Details["authextra"].(wamp.Dict)
			nonce, _ := extra["nonce"].(string)
			r.send(&wamp.Challenge{AuthMethod: "scram", Extra: tt.extra(nonce)})
			abort := expect[*wamp.Abort](r)
			_, err := wait(t, ch)
			if abort.Reason != wamp.ErrAuthenticationFailed || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ABORT %v, Join: %v, want %q", abort, err, tt.want)
			}
		})
	}
}
