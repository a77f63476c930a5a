package auth

import (
	"errors"
	"testing"

	"github.com/junction-wamp/junction/wamp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// wantRefusal checks that err is a *wamp.RequestError with uri and a
// message.
func wantRefusal(t *testing.T, err error, uri wamp.URI) {
	t.Helper()
	var re *wamp.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("error = %v (%T), want a *wamp.RequestError %s", err, err, uri)
	}
	if re.URI != uri {
		t.Fatalf("error URI = %s (%v), want %s", re.URI, re, uri)
	}
	if len(re.Args) != 1 {
		t.Fatalf("error args = %v, want one message", re.Args)
	}
	if s, _ := re.Args[0].(string); s == "" {
		t.Fatalf("error message = %v, want a non-empty string", re.Args[0])
	}
}

// start calls a.Start and requires a challenge.
func start(t *testing.T, a Authenticator, req *Request) Challenge {
	t.Helper()
	id, ch, err := a.Start(req)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if id != nil || ch == nil {
		t.Fatalf("Start = %v, %v; want a challenge only", id, ch)
	}
	if m := ch.Message(); m.AuthMethod != a.Method() {
		t.Fatalf("CHALLENGE method = %q, want %q", m.AuthMethod, a.Method())
	}
	return ch
}

// wantIdentity checks an accepted identity.
func wantIdentity(t *testing.T, got *Identity, err error, want Identity) {
	t.Helper()
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if got == nil || got.AuthID != want.AuthID || got.AuthRole != want.AuthRole ||
		got.AuthMethod != want.AuthMethod || got.AuthProvider != want.AuthProvider {
		t.Fatalf("identity = %+v, want %+v", got, want)
	}
}
