package bridge

import (
	"sync"
	"time"
)

// Nonce cache defaults.
const (
	// DefaultMaxNonces bounds a NonceCache with MaxNonces 0: about 64 bytes
	// an entry with the map's overhead, so a few MiB at most.
	DefaultMaxNonces = 65536
	// DefaultNonceHorizon is how long a nonce is remembered when the
	// service has no timestamp_delta_limit (the window cannot bound it).
	DefaultNonceHorizon = time.Hour
)

// NonceCache remembers the (key, nonce) pairs of accepted signed requests
// for a time, so that a replayed request is refused. It is bounded: past
// MaxNonces entries the oldest is forgotten first. One cache may be shared
// by the services that use the same key. Safe for concurrent use.
type NonceCache struct {
	max int

	mu    sync.Mutex             // guards the fields below
	seen  map[nonceKey]time.Time // expiry of each remembered pair
	order []nonceEntry           // the pairs in insertion order, from head on
	head  int                    // index of the oldest entry in order
}

type nonceKey struct {
	key   string
	nonce uint64
}

type nonceEntry struct {
	k       nonceKey
	expires time.Time
}

// NewNonceCache returns a cache of at most max entries (0 means
// DefaultMaxNonces).
func NewNonceCache(max int) *NonceCache {
	if max <= 0 {
		max = DefaultMaxNonces
	}
	return &NonceCache{max: max, seen: make(map[nonceKey]time.Time)}
}

// Use records (key, nonce) as used until now+ttl. It returns false when the
// pair is already remembered and unexpired: a replay.
func (c *NonceCache) Use(key string, nonce uint64, now time.Time, ttl time.Duration) bool {
	k := nonceKey{key, nonce}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	if exp, ok := c.seen[k]; ok && now.Before(exp) {
		return false
	}
	if c.len() == c.max {
		c.drop()
	}
	if c.head > 0 && c.head >= len(c.order)/2 {
		c.order = append(c.order[:0], c.order[c.head:]...) // reuse the array
		c.head = 0
	}
	e := nonceEntry{k: k, expires: now.Add(ttl)}
	c.order = append(c.order, e)
	c.seen[k] = e.expires
	return true
}

// len returns the number of entries. c.mu must be held.
func (c *NonceCache) len() int { return len(c.order) - c.head }

// Len returns the number of remembered pairs.
func (c *NonceCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.len()
}

// expire forgets the entries expired at now. Entries expire in insertion
// order when they share a ttl; an entry with a longer ttl only delays those
// behind it, never keeps one past the bound. c.mu must be held.
func (c *NonceCache) expire(now time.Time) {
	for c.len() > 0 && !now.Before(c.order[c.head].expires) {
		c.drop()
	}
}

// drop forgets the oldest entry. c.mu must be held.
func (c *NonceCache) drop() {
	e := c.order[c.head]
	if exp, ok := c.seen[e.k]; ok && exp.Equal(e.expires) {
		delete(c.seen, e.k)
	}
	c.order[c.head] = nonceEntry{}
	c.head++
}
