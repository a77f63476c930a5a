package bridge

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/junction-wamp/junction/internal/bridge/httpauth"
)

// BenchmarkCaller posts a call through the Caller handler to a Go callee
// over local pairs and a real router.
func BenchmarkCaller(b *testing.B) {
	e := newEnvTB(b)
	e.register("com.example.echo", echoArgs)
	h, err := NewCaller(e.bridge, CallerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	const body = `{"procedure":"com.example.echo","args":[1,"two",3.5],"kwargs":{"k":true}}`
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("POST", "/call", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkCallerIdentity is BenchmarkCaller without credentials and with
// an HS256 JWT on each request (verified once, then found in the
// resolver's cache), in the same run; the call then runs with the token's
// identity.
func BenchmarkCallerIdentity(b *testing.B) {
	e := newActsForEnv(b)
	e.register("com.user.echo", echoArgs)
	e.register("com.example.echo", echoArgs)
	secret := []byte("0123456789abcdef0123456789abcdef")
	res, err := httpauth.New(httpauth.Options{JWT: &httpauth.JWTOptions{Algorithms: []string{"HS256"}, Secret: secret, AuthRole: "user"}})
	if err != nil {
		b.Fatal(err)
	}
	token := benchToken(b, secret)
	for _, tt := range []struct {
		name, procedure, authz string
		access                 Access
	}{
		{"none", "com.example.echo", "", Access{}},
		{"jwt", "com.user.echo", "Bearer " + token, Access{Identity: res}},
	} {
		h, err := NewCaller(e.bridge, CallerOptions{Access: tt.access})
		if err != nil {
			b.Fatal(err)
		}
		body := `{"procedure":"` + tt.procedure + `","args":[1,"two",3.5],"kwargs":{"k":true}}`
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("POST", "/call", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				if tt.authz != "" {
					r.Header.Set("Authorization", tt.authz)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}

// benchToken is an HS256 token for alice, valid for an hour.
func benchToken(b *testing.B, secret []byte) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: secret}, nil)
	if err != nil {
		b.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(jwt.Claims{Subject: "alice", Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}).Serialize()
	if err != nil {
		b.Fatal(err)
	}
	return tok
}
