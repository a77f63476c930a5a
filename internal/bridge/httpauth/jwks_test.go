package httpauth

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/junction-wamp/junction/internal/logtest"
)

// jwksServer serves a key set that the test replaces, on loopback, and
// counts the fetches.
type jwksServer struct {
	mu      sync.Mutex
	body    []byte
	status  int
	fetches atomic.Int32
}

func (s *jwksServer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.fetches.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status != 0 {
		w.WriteHeader(s.status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(s.body)
}

func (s *jwksServer) set(body []byte, status int) {
	s.mu.Lock()
	s.body, s.status = body, status
	s.mu.Unlock()
}

// TestJWKSURL: the key set is fetched at the first token, again for an
// unknown key ID (at most once per jwksMinGap) and once it is older than
// the refresh interval; a failed fetch keeps the keys.
func TestJWKSURL(t *testing.T) {
	k1, k2 := rsaKey(t), rsaKey(t)
	js := &jwksServer{}
	js.set(jwksOf(t, map[string]any{"k1": &k1.PublicKey}), 0)
	srv := httptest.NewServer(js)
	defer srv.Close()
	now := t0
	var log logtest.Log
	o := hsOptions()
	o.Secret, o.Algorithms, o.JWKSURL, o.JWKSRefresh = nil, []string{"RS256"}, srv.URL, time.Hour
	r, err := New(Options{JWT: o, Now: func() time.Time { return now }, Logger: log.Logger(0), HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	fetches := func(want int32) {
		t.Helper()
		if got := js.fetches.Load(); got != want {
			t.Fatalf("%d fetches, want %d", got, want)
		}
	}
	tok := func(k any, kid string) *http.Request {
		c := validClaims()
		c.Claims.Expiry = numeric(now.Add(time.Hour)) // the cache must not answer for a later clock
		c.Claims.NotBefore = nil
		return request("Bearer " + sign(t, jose.RS256, k, kid, c))
	}
	invalid := outcome{status: 401, code: "invalid_token"}

	check(t, r, tok(k1, "k1"), outcome{id: aliceUser})
	fetches(1)
	js.set(jwksOf(t, map[string]any{"k1": &k1.PublicKey, "k2": &k2.PublicKey}), 0)
	check(t, r, tok(k2, "k2"), invalid) // unknown, but fetched just now
	fetches(1)
	now = now.Add(jwksMinGap)
	check(t, r, tok(k2, "k2"), outcome{id: aliceUser}) // unknown: fetched again
	fetches(2)
	for range 3 {
		check(t, r, tok(k1, "k9"), invalid) // made-up key IDs: one fetch per gap
	}
	fetches(2)
	remote := r.jwt.keys.(*remoteKeys)
	now = now.Add(time.Hour)
	js.set(nil, http.StatusInternalServerError)
	check(t, r, tok(k1, "k1"), outcome{id: aliceUser}) // due: refreshed in the background, the keys there are serve
	remote.wait()
	fetches(3)
	if lines := log.Lines(t, "bridge: jwks_url fetch failed, keeping the keys there were"); len(lines) != 1 {
		t.Fatalf("log: %s", log.String())
	}
	check(t, r, tok(k2, "k2"), outcome{id: aliceUser}) // refresh failed: the keys stay
	fetches(3)

	// A scheduled refresh replaces the keys without a request waiting:
	// k1 is gone from the set once it is done.
	now = now.Add(time.Hour)
	js.set(jwksOf(t, map[string]any{"k2": &k2.PublicKey}), 0)
	check(t, r, tok(k2, "k2"), outcome{id: aliceUser})
	remote.wait()
	fetches(4)
	now = now.Add(jwksMinGap)
	check(t, r, tok(k1, "k1"), invalid) // k1 unknown: fetched once more, still not there
	fetches(5)
}
