package httpauth

import (
	"context"
	"crypto"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/junction-wamp/junction/internal/lograte"
)

// refreshedKeys is a key set loaded again on a schedule: a jwks_url's,
// fetched, or a jwks_file's, read. It is loaded at first use (the
// request waits; a jwks_file is loaded when the Resolver is built),
// every `every` after that (in the background, while the keys there are
// keep serving, so no request waits for a scheduled refresh), and when a
// token names a key ID it lacks (at most once per jwksMinGap; that
// request waits). A failed load keeps the keys there were, and is
// logged, rate-limited. A load that removes or changes a key gives the
// set a new version (tokenCache). Safe for concurrent use.
type refreshedKeys struct {
	failed string // the log line of a failed load
	attr   string // the log attribute of src: "url" or "file"
	src    string // the URL or the file name
	load   func(ctx context.Context) ([]jose.JSONWebKey, error)
	every  time.Duration
	now    func() time.Time
	log    *slog.Logger
	limit  lograte.Limit

	version atomic.Uint64 // the set's changes that removed or changed a key
	due     atomic.Int64  // Unix ns when a scheduled refresh is due; 0 before the first load

	mu      sync.Mutex // guards the fields below; held during a load a request waits for
	set     []jose.JSONWebKey
	fetched time.Time // of the last load started, successful or not
	// refreshing is closed when the background refresh under way ends;
	// nil when none is.
	refreshing chan struct{}
}

var _ keySource = (*refreshedKeys)(nil)

func newRefreshedKeys(failed, attr, src string, load func(context.Context) ([]jose.JSONWebKey, error), every time.Duration,
	now func() time.Time, log *slog.Logger) *refreshedKeys {
	if every <= 0 {
		every = DefaultJWKSRefresh
	}
	return &refreshedKeys{failed: failed, attr: attr, src: src, load: load, every: every, now: now, log: log, limit: lograte.Limit{Interval: logEvery}}
}

// newRemoteKeys is the key set of a jwks_url.
func newRemoteKeys(url string, every time.Duration, client *http.Client, now func() time.Time, log *slog.Logger) *refreshedKeys {
	if client == nil {
		client = &http.Client{Timeout: jwksTimeout}
	}
	return newRefreshedKeys("bridge: jwks_url fetch failed, keeping the keys there were", "url", url, func(ctx context.Context) ([]jose.JSONWebKey, error) {
		return fetchJWKS(ctx, client, url)
	}, every, now, log)
}

// newFileKeys is the key set of a jwks_file, loaded now: from data when
// given (the file's content, read by the caller), else from the file.
func newFileKeys(name string, data []byte, every time.Duration, now func() time.Time, log *slog.Logger) (*refreshedKeys, error) {
	r := newRefreshedKeys("bridge: jwks_file read failed, keeping the keys there were", "file", name, func(context.Context) ([]jose.JSONWebKey, error) {
		return readJWKS(name)
	}, every, now, log)
	var set []jose.JSONWebKey
	var err error
	if data != nil {
		set, err = parseJWKS(data)
	} else {
		set, err = readJWKS(name)
	}
	if err != nil {
		return nil, fmt.Errorf("httpauth: jwt: jwks_file: %w", err)
	}
	r.set = set
	r.loaded(r.now())
	return r, nil
}

func (r *refreshedKeys) keys(ctx context.Context, kid string) []jose.JSONWebKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fetched.IsZero() {
		r.fetch(ctx)
	} else {
		r.refreshIfDue()
	}
	ks := byKID(r.set, kid)
	if len(ks) == 0 && kid != "" && r.now().Sub(r.fetched) >= jwksMinGap {
		r.fetch(ctx)
		ks = byKID(r.set, kid)
	}
	return ks
}

// current starts a scheduled refresh when one is due, unless a load is
// under way, and returns the set's version. It does not wait for r.mu,
// which a load a request waits for holds: a cached token's request
// costs no load.
func (r *refreshedKeys) current() uint64 {
	if d := r.due.Load(); d != 0 && r.now().UnixNano() >= d && r.mu.TryLock() {
		r.refreshIfDue()
		r.mu.Unlock()
	}
	return r.version.Load()
}

// refreshIfDue starts a background refresh when one is due and none is
// under way. r.mu must be held.
func (r *refreshedKeys) refreshIfDue() {
	if r.now().Sub(r.fetched) < r.every || r.refreshing != nil {
		return
	}
	r.loaded(r.now())
	done := make(chan struct{})
	r.refreshing = done
	go r.refresh(done)
}

// loaded records that a load started at t. r.mu must be held (or r not
// shared yet).
func (r *refreshedKeys) loaded(t time.Time) {
	r.fetched = t
	r.due.Store(t.Add(r.every).UnixNano())
}

// fetch loads the key set while the request waits. r.mu must be held.
func (r *refreshedKeys) fetch(ctx context.Context) {
	r.loaded(r.now())
	set, err := r.load(ctx)
	r.keep(set, err)
}

// refresh loads the key set in the background, with r.mu not held, and
// closes done.
func (r *refreshedKeys) refresh(done chan struct{}) {
	set, err := r.load(context.Background())
	r.mu.Lock()
	r.keep(set, err)
	r.refreshing = nil
	r.mu.Unlock()
	close(done)
}

// keep stores a loaded set, or logs why there is none. r.mu must be held.
func (r *refreshedKeys) keep(set []jose.JSONWebKey, err error) {
	if err != nil {
		if ok, held := r.limit.Allow(); ok {
			r.log.Warn(r.failed, r.attr, r.src, "err", err, "held_back", held)
		}
		return
	}
	if r.set != nil && removesKeys(r.set, set) {
		r.version.Add(1)
	}
	r.set = set
}

// wait returns once the background refresh under way, if any, has ended.
func (r *refreshedKeys) wait() {
	r.mu.Lock()
	done := r.refreshing
	r.mu.Unlock()
	if done != nil {
		<-done
	}
}

// removesKeys reports whether a key of old (its ID and its public key)
// is not in set.
func removesKeys(old, set []jose.JSONWebKey) bool {
	have := make(map[string]bool, len(set))
	for _, k := range set {
		have[keyIdentity(k)] = true
	}
	for _, k := range old {
		if !have[keyIdentity(k)] {
			return true
		}
	}
	return false
}

// keyIdentity is a key's ID and the RFC 7638 thumbprint of its public
// key.
func keyIdentity(k jose.JSONWebKey) string {
	tp, err := k.Thumbprint(crypto.SHA256)
	if err != nil { // not a kind parseJWKS keeps: counted as changed
		return fmt.Sprintf("%s\x00%p", k.KeyID, k.Key)
	}
	return k.KeyID + "\x00" + string(tp)
}

// readJWKS reads a key set file of at most maxJWKS bytes.
func readJWKS(name string) ([]jose.JSONWebKey, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readJWKSFrom(f)
}

// readJWKSFrom reads a key set document of at most maxJWKS bytes.
func readJWKSFrom(r io.Reader) ([]jose.JSONWebKey, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxJWKS+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxJWKS {
		return nil, fmt.Errorf("key set larger than %d bytes", maxJWKS)
	}
	return parseJWKS(data)
}

// fetchJWKS gets the key set at url.
func fetchJWKS(ctx context.Context, client *http.Client, url string) ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("httpauth: jwks_url: status %d", resp.StatusCode)
	}
	return readJWKSFrom(resp.Body)
}
