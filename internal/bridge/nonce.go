package bridge

import (
	"errors"
	"sync"
	"time"
)

// Replay cache defaults.
const (
	// DefaultMaxNonces bounds a NonceCache with MaxNonces 0: about 250
	// bytes a request with the maps' overhead (measured), so about 16 MiB
	// at most. With a timestamp window, a key sustains DefaultMaxNonces
	// requests per twice the window: 109 a second at 300 s.
	DefaultMaxNonces = 65536
	// DefaultNonceHorizon is how long a request is remembered when the
	// service has no timestamp_delta_limit (the window cannot bound it).
	DefaultNonceHorizon = time.Hour
)

// macKeySize is how much of a request's MAC the cache keeps: 128 bits,
// so that two different accepted requests never share a key by chance.
// Only requests whose full MAC was verified are recorded.
const macKeySize = 16

// Errors of NonceCache.Use.
var (
	// ErrReplay: the request's (key, nonce) or its MAC is remembered.
	ErrReplay = errors.New("bridge: nonce or signature already used")
	// ErrNoncesFull: the cache is full of requests that it must remember
	// until they expire (see NonceUse.Window).
	ErrNoncesFull = errors.New("bridge: replay cache full of requests inside their timestamp window")
)

// NonceUse is a signed request, its MAC verified, for NonceCache.Use.
type NonceUse struct {
	Key   string
	Nonce uint64
	MAC   []byte        // the first macKeySize bytes are kept
	TTL   time.Duration // how long it is remembered
	// Window says the request was accepted inside a timestamp window, so
	// that a copy of it would be accepted until TTL ends: it is never
	// forgotten before, and while the oldest request remembered is such
	// a request and unexpired, a new one finds the cache full
	// (ErrNoncesFull) instead of making room. Without a window nothing
	// stops a copy once the request is forgotten, and when the cache is
	// full the oldest request is forgotten to make room.
	Window bool
}

// NonceCache remembers the accepted signed requests for a time, so that a
// replayed request is refused. It remembers two things of each: its (key,
// nonce), so that a nonce is never used twice with a key, and its MAC, so
// that the same signed request cannot come back with its nonce spelt
// differently. (The signed string key‖timestamp‖seq‖nonce‖body has no
// separators: seq=1&nonce=4242 and seq=14&nonce=242 share one MAC.) It is
// bounded to max requests: past it, the oldest is forgotten first unless
// it is inside its timestamp window (see NonceUse.Window). One cache may
// be shared by the services that use the same key. Safe for concurrent
// use.
type NonceCache struct {
	max int

	mu     sync.Mutex                 // guards the fields below
	nonces map[nonceKey]int64         // expiry (Unix ns) of each remembered (key, nonce)
	macs   map[[macKeySize]byte]int64 // expiry (Unix ns) of each remembered MAC
	order  []nonceEntry               // the requests in insertion order, from head on
	head   int                        // index of the oldest entry in order
}

type nonceKey struct {
	key   string
	nonce uint64
}

// nonceEntry is one accepted request.
type nonceEntry struct {
	nonce   nonceKey
	mac     [macKeySize]byte
	expires int64 // Unix ns
	keep    bool  // never forgotten before it expires (NonceUse.Window)
}

// NewNonceCache returns a cache of at most max requests (0 means
// DefaultMaxNonces).
func NewNonceCache(max int) *NonceCache {
	if max <= 0 {
		max = DefaultMaxNonces
	}
	return &NonceCache{max: max, nonces: make(map[nonceKey]int64), macs: make(map[[macKeySize]byte]int64)}
}

// Use records u as used until now+u.TTL. It returns ErrReplay when its
// (key, nonce) or its MAC is already remembered and unexpired, and
// ErrNoncesFull when the cache is full and its oldest request must be
// kept; u is then not recorded.
func (c *NonceCache) Use(u NonceUse, now time.Time) error {
	at := now.UnixNano()
	e := nonceEntry{nonce: nonceKey{u.Key, u.Nonce}, expires: now.Add(u.TTL).UnixNano(), keep: u.Window}
	copy(e.mac[:], u.MAC)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(at)
	if c.seen(e, at) {
		return ErrReplay
	}
	if c.len() == c.max {
		if c.order[c.head].keep {
			return ErrNoncesFull
		}
		c.drop()
	}
	if c.head > 0 && c.head >= len(c.order)/2 {
		c.order = append(c.order[:0], c.order[c.head:]...) // reuse the array
		c.head = 0
	}
	c.order = append(c.order, e)
	c.nonces[e.nonce] = e.expires
	c.macs[e.mac] = e.expires
	return nil
}

// seen reports whether e's nonce or MAC is remembered and unexpired at
// now (Unix ns). c.mu must be held.
func (c *NonceCache) seen(e nonceEntry, now int64) bool {
	if exp, ok := c.nonces[e.nonce]; ok && now < exp {
		return true
	}
	exp, ok := c.macs[e.mac]
	return ok && now < exp
}

// len returns the number of entries. c.mu must be held.
func (c *NonceCache) len() int { return len(c.order) - c.head }

// Len returns the number of remembered requests.
func (c *NonceCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.len()
}

// expire forgets the entries expired at now (Unix ns). Entries expire in insertion
// order when they share a ttl; an entry with a longer ttl only delays those
// behind it, never keeps one past the bound. c.mu must be held.
func (c *NonceCache) expire(now int64) {
	for c.len() > 0 && now >= c.order[c.head].expires {
		c.drop()
	}
}

// drop forgets the oldest entry; a nonce or MAC recorded again since (once
// expired) stays. c.mu must be held.
func (c *NonceCache) drop() {
	e := c.order[c.head]
	if exp, ok := c.nonces[e.nonce]; ok && exp == e.expires {
		delete(c.nonces, e.nonce)
	}
	if exp, ok := c.macs[e.mac]; ok && exp == e.expires {
		delete(c.macs, e.mac)
	}
	c.order[c.head] = nonceEntry{}
	c.head++
}
