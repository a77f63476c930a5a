package router

import (
	"container/list"
	"crypto/sha256"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/wamp"
)

// The login throttle's numbers (docs/configuration.md, "Failed logins").
const (
	// throttleInitial is the delay after one failure; each further one
	// doubles it, up to throttleMax.
	throttleInitial = 200 * time.Millisecond
	throttleMax     = 5 * time.Second
	// throttleDecay: each such quiet period without a failure forgets one
	// failure (halves the delay); an entry with none left is dropped.
	throttleDecay = 30 * time.Second
	// throttleEntries caps each table (client addresses, authids); when
	// one is full, the entry whose last failure is oldest goes.
	throttleEntries = 10_000
)

// throttleMaxFails is the failure count whose delay reaches throttleMax:
// counting further would only make the decay take longer.
var throttleMaxFails = func() int {
	n := 1
	for throttleDelay(n) < throttleMax {
		n++
	}
	return n
}()

// ErrThrottledURI is the ABORT reason of a login refused without being
// tried, because its address has too many attempts waiting already.
const ErrThrottledURI wamp.URI = "junction.error.login_throttled"

// throttleDelay is the delay after fails failures.
func throttleDelay(fails int) time.Duration {
	if fails <= 0 {
		return 0
	}
	d := throttleInitial
	for range fails - 1 {
		if d >= throttleMax {
			break
		}
		d *= 2
	}
	return min(d, throttleMax)
}

// throttle slows down password guessing. Failed logins are counted per
// client address and per authid. After a failure the router holds back
// the CHALLENGE of the next login attempt (the failed one was answered at
// once): from the same address, attempts are spaced throttleDelay(fails)
// apart, so that parallel connections do not multiply the rate, and an
// attempt that would wait more than throttleMax is refused at once with
// ErrThrottledURI; for the same authid, an attempt waits until
// throttleDelay(fails) after that authid's last failure, and is never
// refused (anyone could otherwise lock a real user out). A success clears
// its authid's failures, not its address's (or a valid account would reset
// the count between guesses). Safe for concurrent use; the zero value is
// ready.
type throttle struct {
	mu      sync.Mutex
	addrs   throttleTable
	authids throttleTable
}

// loginKey says whom a login attempt is counted against; "" for none.
type loginKey struct {
	addr   string // the client's IP address (its /64 for IPv6)
	authid string // a digest of the authid, of bounded size
}

// throttleEntry is the failures of one address or authid.
type throttleEntry struct {
	key   string
	fails int       // failures counted at last
	last  time.Time // the last failure
	next  time.Time // addresses: when the next attempt may start
	elem  *list.Element
}

// failsAt is the failures not yet forgotten at now.
func (e *throttleEntry) failsAt(now time.Time) int {
	return max(e.fails-int(now.Sub(e.last)/throttleDecay), 0)
}

// throttleTable is a capped table of entries, oldest failure first.
type throttleTable struct {
	m   map[string]*throttleEntry
	lru list.List // of *throttleEntry; front: the oldest last failure
}

// get returns key's entry, nil (dropping it) if at now it has no failure
// left and no attempt scheduled.
func (t *throttleTable) get(key string, now time.Time) *throttleEntry {
	e := t.m[key]
	if e != nil && e.failsAt(now) == 0 && !e.next.After(now) {
		t.remove(e)
		return nil
	}
	return e
}

// fail counts a failure of key at now and returns its entry.
func (t *throttleTable) fail(key string, now time.Time) *throttleEntry {
	e := t.get(key, now)
	if e == nil {
		e = t.add(key, now)
	}
	e.fails = min(e.failsAt(now)+1, throttleMaxFails)
	e.last = now
	t.lru.MoveToBack(e.elem)
	return e
}

// add inserts a new entry for key, making room first.
func (t *throttleTable) add(key string, now time.Time) *throttleEntry {
	if t.m == nil {
		t.m = make(map[string]*throttleEntry)
	}
	for t.lru.Len() > 0 {
		oldest := t.lru.Front().Value.(*throttleEntry)
		if t.lru.Len() < throttleEntries && (oldest.failsAt(now) > 0 || oldest.next.After(now)) {
			break
		}
		t.remove(oldest)
	}
	e := &throttleEntry{key: key}
	e.elem = t.lru.PushBack(e)
	t.m[key] = e
	return e
}

func (t *throttleTable) remove(e *throttleEntry) {
	t.lru.Remove(e.elem)
	delete(t.m, e.key)
}

// admit is asked before a login attempt's CHALLENGE: it returns how long
// to hold the CHALLENGE back, or false when the attempt is refused at once.
func (th *throttle) admit(k loginKey, now time.Time) (time.Duration, bool) {
	th.mu.Lock()
	defer th.mu.Unlock()
	var wait time.Duration
	if e := th.addrs.get(k.addr, now); e != nil {
		start := maxTime(now, e.next)
		if start.Sub(now) > throttleMax {
			return 0, false
		}
		e.next = start.Add(throttleDelay(e.failsAt(now)))
		wait = start.Sub(now)
	}
	if e := th.authids.get(k.authid, now); e != nil {
		wait = max(wait, e.last.Add(throttleDelay(e.failsAt(now))).Sub(now))
	}
	return wait, true
}

// failed counts a failed login at now.
func (th *throttle) failed(k loginKey, now time.Time) {
	th.mu.Lock()
	defer th.mu.Unlock()
	if k.addr != "" {
		e := th.addrs.fail(k.addr, now)
		e.next = maxTime(e.next, now.Add(throttleDelay(e.fails)))
	}
	if k.authid != "" {
		th.authids.fail(k.authid, now)
	}
}

// succeeded forgets the failures of k's authid.
func (th *throttle) succeeded(k loginKey) {
	th.mu.Lock()
	defer th.mu.Unlock()
	if e := th.authids.m[k.authid]; e != nil {
		th.authids.remove(e)
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// loginKeyOf is whom req is counted against: nothing for the node's own
// sessions (an Internal gate) and for in-process peers (no address); no
// address for a Unix socket.
func (s *session) loginKeyOf(req *auth.Request) loginKey {
	if s.gate.opts.Internal || req.Peer.RemoteAddr == "" {
		return loginKey{}
	}
	k := loginKey{addr: addrKey(req.Peer.RemoteAddr)}
	if req.AuthID != "" {
		sum := sha256.Sum256([]byte(req.AuthID))
		k.authid = string(sum[:])
	}
	return k
}

// addrKey is the throttle's key for a "host:port" address: the IP address,
// or its /64 network for IPv6 (one host usually holds a whole /64); "" when
// it is not an IP address (a Unix socket's path).
func addrKey(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return ""
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return ""
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().String()
	}
	return ip.String()
}
