package httpauth

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
)

// maxJWKS bounds a key set document.
const maxJWKS = 1 << 20

// parsePublicKey reads a PEM public key: PKIX ("PUBLIC KEY"), PKCS#1
// ("RSA PUBLIC KEY") or a certificate's.
func parsePublicKey(data []byte) (any, error) {
	b, _ := pem.Decode(data)
	if b == nil {
		return nil, errors.New("httpauth: jwt: public_key: no PEM block")
	}
	switch b.Type {
	case "PUBLIC KEY":
		return x509.ParsePKIXPublicKey(b.Bytes)
	case "RSA PUBLIC KEY":
		return x509.ParsePKCS1PublicKey(b.Bytes)
	case "CERTIFICATE":
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("httpauth: jwt: public_key: %w", err)
		}
		return c.PublicKey, nil
	}
	return nil, fmt.Errorf("httpauth: jwt: public_key: PEM block %q is not a public key", b.Type)
}

// parseJWKS reads a key set and keeps the public keys of its signing
// keys: a private key is reduced to its public half, and a symmetric key
// is refused (a key set is for public keys; use secret for HMAC).
func parseJWKS(data []byte) ([]jose.JSONWebKey, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, err
	}
	out := make([]jose.JSONWebKey, 0, len(set.Keys))
	for _, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if _, ok := k.Key.([]byte); ok {
			return nil, fmt.Errorf("key %q: a symmetric key in a key set (give it as secret)", k.KeyID)
		}
		if !k.IsPublic() {
			k = k.Public()
		}
		if !k.Valid() {
			return nil, fmt.Errorf("key %q: not a valid public key", k.KeyID)
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, errors.New("no signing key")
	}
	return out, nil
}

// remoteKeys is a key set fetched from a URL: at first use (the request
// waits), every `every` after that (in the background, while the keys
// there are keep serving, so no request waits for a scheduled refresh),
// and when a token names a key ID it lacks (at most once per jwksMinGap;
// that request waits). A failed fetch keeps the keys there were, and is
// logged, rate-limited. Safe for concurrent use.
type remoteKeys struct {
	url    string
	every  time.Duration
	client *http.Client
	now    func() time.Time
	log    *slog.Logger
	limit  lograte.Limit

	mu      sync.Mutex // guards the fields below; held during a fetch a request waits for
	set     []jose.JSONWebKey
	fetched time.Time // of the last fetch started, successful or not
	// refreshing is closed when the background refresh under way ends;
	// nil when none is.
	refreshing chan struct{}
}

func newRemoteKeys(url string, every time.Duration, client *http.Client, now func() time.Time, log *slog.Logger) *remoteKeys {
	if every <= 0 {
		every = DefaultJWKSRefresh
	}
	if client == nil {
		client = &http.Client{Timeout: jwksTimeout}
	}
	return &remoteKeys{url: url, every: every, client: client, now: now, log: log, limit: lograte.Limit{Interval: logEvery}}
}

func (r *remoteKeys) keys(ctx context.Context, kid string) []jose.JSONWebKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.fetched.IsZero():
		r.fetch(ctx)
	case r.now().Sub(r.fetched) >= r.every && r.refreshing == nil:
		r.fetched = r.now()
		done := make(chan struct{})
		r.refreshing = done
		go r.refresh(done)
	}
	ks := byKID(r.set, kid)
	if len(ks) == 0 && kid != "" && r.now().Sub(r.fetched) >= jwksMinGap {
		r.fetch(ctx)
		ks = byKID(r.set, kid)
	}
	return ks
}

// fetch gets the key set while the request waits. r.mu must be held.
func (r *remoteKeys) fetch(ctx context.Context) {
	r.fetched = r.now()
	set, err := r.get(ctx)
	r.keep(set, err)
}

// refresh gets the key set in the background, with r.mu not held, and
// closes done.
func (r *remoteKeys) refresh(done chan struct{}) {
	set, err := r.get(context.Background())
	r.mu.Lock()
	r.keep(set, err)
	r.refreshing = nil
	r.mu.Unlock()
	close(done)
}

// keep stores a fetched set, or logs why there is none. r.mu must be held.
func (r *remoteKeys) keep(set []jose.JSONWebKey, err error) {
	if err != nil {
		if ok, held := r.limit.Allow(); ok {
			r.log.Warn("bridge: jwks_url fetch failed, keeping the keys there were", "url", r.url, "err", err, "held_back", held)
		}
		return
	}
	r.set = set
}

// wait returns once the background refresh under way, if any, has ended.
func (r *remoteKeys) wait() {
	r.mu.Lock()
	done := r.refreshing
	r.mu.Unlock()
	if done != nil {
		<-done
	}
}

func (r *remoteKeys) get(ctx context.Context) ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("httpauth: jwks_url: status %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKS+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxJWKS {
		return nil, fmt.Errorf("httpauth: jwks_url: key set larger than %d bytes", maxJWKS)
	}
	return parseJWKS(data)
}

// maxCachedTokens bounds the tokens a verifier keeps.
const maxCachedTokens = 4096

// tokenCache keeps verified tokens until they expire, by their SHA-256
// (the token itself is not kept). Safe for concurrent use.
type tokenCache struct {
	mu sync.Mutex // guards m
	m  map[[32]byte]cachedToken
}

type cachedToken struct {
	id    *wamp.Identity
	until time.Time
}

// get returns the identity of token if it was verified and is not
// expired at now.
func (c *tokenCache) get(token string, now time.Time) (*wamp.Identity, bool) {
	k := sha256.Sum256([]byte(token))
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.m[k]
	if !ok || !now.Before(t.until) {
		return nil, false
	}
	return t.id, true
}

// put keeps a verified token until until. A full cache drops its expired
// tokens, or all of them if none has expired.
func (c *tokenCache) put(token string, id *wamp.Identity, until, now time.Time) {
	k := sha256.Sum256([]byte(token))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[[32]byte]cachedToken)
	}
	if len(c.m) >= maxCachedTokens {
		for k, t := range c.m {
			if !now.Before(t.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCachedTokens {
			clear(c.m)
		}
	}
	c.m[k] = cachedToken{id, until}
}
