package httpauth

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
	remote := r.jwt.keys.(*refreshedKeys)
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

// A token verified with a key that a refresh of the key set removes is
// refused from then on, though it was kept in the token cache; a token
// of a key that stays is still accepted. For a jwks_file (rewritten) and
// a jwks_url (serving another set).
func TestKeyRemovalDropsCachedTokens(t *testing.T) {
	k1, k2 := rsaKey(t), rsaKey(t)
	both := jwksOf(t, map[string]any{"k1": &k1.PublicKey, "k2": &k2.PublicKey})
	onlyK2 := jwksOf(t, map[string]any{"k2": &k2.PublicKey})
	tests := []struct {
		name string
		// source points o at a key set holding keys, and returns how to
		// replace them.
		source func(t *testing.T, o *Options, keys []byte) (replace func([]byte))
	}{
		{"jwks_file", func(t *testing.T, o *Options, keys []byte) func([]byte) {
			name := filepath.Join(t.TempDir(), "jwks.json")
			write := func(b []byte) {
				if err := os.WriteFile(name, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write(keys)
			o.JWT.JWKSFile = name
			return write
		}},
		{"jwks_url", func(t *testing.T, o *Options, keys []byte) func([]byte) {
			js := &jwksServer{}
			js.set(keys, 0)
			srv := httptest.NewServer(js)
			t.Cleanup(srv.Close)
			o.JWT.JWKSURL, o.HTTPClient = srv.URL, srv.Client()
			return func(b []byte) { js.set(b, 0) }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := t0
			o := Options{JWT: hsOptions(), Now: func() time.Time { return now }}
			o.JWT.Secret, o.JWT.Algorithms, o.JWT.JWKSRefresh = nil, []string{"RS256"}, time.Hour
			replace := tt.source(t, &o, both)
			r, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			c := validClaims()
			c.Claims.Expiry = numeric(t0.Add(3 * time.Hour)) // valid, and cached, for the whole test
			tok1 := request("Bearer " + sign(t, jose.RS256, k1, "k1", c))
			tok2 := request("Bearer " + sign(t, jose.RS256, k2, "k2", c))
			check(t, r, tok1, outcome{id: aliceUser})
			check(t, r, tok2, outcome{id: aliceUser})

			replace(onlyK2)
			check(t, r, tok1, outcome{id: aliceUser}) // no refresh yet: the keys loaded serve
			now = now.Add(time.Hour)
			check(t, r, tok2, outcome{id: aliceUser}) // due: refreshed in the background
			r.jwt.keys.(*refreshedKeys).wait()
			check(t, r, tok1, outcome{status: 401, code: "invalid_token"}) // k1 is gone: at once, though cached
			check(t, r, tok2, outcome{id: aliceUser})
		})
	}
}

// A jwks_file that cannot be read or parsed when the Resolver is built is
// an error; one that cannot be read at a refresh keeps the keys there
// were, logged.
func TestJWKSFileErrors(t *testing.T) {
	k1 := rsaKey(t)
	dir := t.TempDir()
	name := filepath.Join(dir, "jwks.json")
	o := hsOptions()
	o.Secret, o.Algorithms, o.JWKSFile = nil, []string{"RS256"}, name
	if _, err := New(Options{JWT: o}); err == nil || !strings.Contains(err.Error(), "jwks_file") {
		t.Fatalf("missing file: %v", err)
	}
	if err := os.WriteFile(name, []byte(`{"keys": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{JWT: o}); err == nil || !strings.Contains(err.Error(), "jwks_file") {
		t.Fatalf("bad file: %v", err)
	}
	if err := os.WriteFile(name, jwksOf(t, map[string]any{"k1": &k1.PublicKey}), 0o600); err != nil {
		t.Fatal(err)
	}
	now := t0
	var log logtest.Log
	r, err := New(Options{JWT: o, Now: func() time.Time { return now }, Logger: log.Logger(0)})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	now = now.Add(DefaultJWKSRefresh)
	c := validClaims()
	c.Claims.Expiry, c.Claims.NotBefore = numeric(now.Add(time.Hour)), nil
	tok := request("Bearer " + sign(t, jose.RS256, k1, "k1", c))
	check(t, r, tok, outcome{id: aliceUser})
	r.jwt.keys.(*refreshedKeys).wait()
	if lines := log.Lines(t, "bridge: jwks_file read failed, keeping the keys there were"); len(lines) != 1 || lines[0]["file"] != name {
		t.Fatalf("log: %s", log.String())
	}
	check(t, r, tok, outcome{id: aliceUser})
}

// A new version of a key set is due when a key is removed or changed, not
// when one is added or the set comes again unchanged.
func TestRemovesKeys(t *testing.T) {
	k1, k2 := rsaKey(t), ecKey(t)
	set := func(keys map[string]any) []jose.JSONWebKey {
		t.Helper()
		ks, err := parseJWKS(jwksOf(t, keys))
		if err != nil {
			t.Fatal(err)
		}
		return ks
	}
	one := set(map[string]any{"k1": &k1.PublicKey})
	tests := []struct {
		name string
		set  []jose.JSONWebKey
		want bool
	}{
		{"same, parsed again", set(map[string]any{"k1": &k1.PublicKey}), false},
		{"key added", set(map[string]any{"k1": &k1.PublicKey, "k2": &k2.PublicKey}), false},
		{"key removed", set(map[string]any{"k2": &k2.PublicKey}), true},
		{"key ID moved to another key", set(map[string]any{"k1": &k2.PublicKey}), true},
		{"key under another ID", set(map[string]any{"k9": &k1.PublicKey}), true},
	}
	for _, tt := range tests {
		if got := removesKeys(one, tt.set); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
