package loginguard

import (
	"crypto/sha256"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// The login throttle's numbers (docs/configuration.md, "Failed logins").
const (
	// throttleInitial is the delay after one failure; each further one
	// doubles it, up to Max.
	throttleInitial = 200 * time.Millisecond
	// Max is the longest delay: an address's attempt that would wait
	// longer is refused at once.
	Max = 5 * time.Second
	// throttleDecay: each such quiet period without a failure forgets one
	// failure (halves the delay); an entry with none left is dropped.
	throttleDecay = 30 * time.Second
	// throttleEntries caps each table (client addresses, authids); when
	// one is full, an entry with nothing left to remember goes first, else
	// the one that would be forgotten soonest; an address with attempts
	// pending never goes (table.go).
	throttleEntries = 10_000
	// throttlePending caps the attempts of one address whose outcome is
	// not known yet (CHALLENGE sent or held back, no answer verified):
	// a failure is counted only once its attempt ends, so without it a
	// burst of parallel attempts that all hold back their answers would
	// all get a CHALLENGE before the first failure is counted. One more
	// is refused at once.
	throttlePending = 64
	// ipv6Prefix is how many leading bits of an IPv6 address name one
	// client. Not 64: a host usually holds a whole /64, but a subscriber
	// is commonly given a /56 (or a /48), one site as an IPv4 address
	// behind NAT is; counted by /64, one subscriber would have 256 times
	// the guesses and the pending attempts of an IPv4 client, and could
	// fill the address table with pending entries (which are never
	// evicted) on its own.
	ipv6Prefix = 56
)

// maxFails is the failure count whose delay reaches Max:
// counting further would only make the decay take longer.
var maxFails = func() int {
	n := 1
	for Delay(n) < Max {
		n++
	}
	return n
}()

// ErrThrottledURI is the ABORT reason of a login refused without being
// tried, because its address has too many attempts waiting already (or
// the throttle's address table is full of addresses that have).
const ErrThrottledURI wamp.URI = "junction.error.login_throttled"

// Delay is the delay after fails failures.
func Delay(fails int) time.Duration {
	if fails <= 0 {
		return 0
	}
	d := throttleInitial
	for range fails - 1 {
		if d >= Max {
			break
		}
		d *= 2
	}
	return min(d, Max)
}

// Throttle slows down password guessing. Failed logins are counted per
// client address and per authid: a wrong answer, and a CHALLENGE left
// unanswered (the client gone, the join timeout, a protocol violation).
// After a failure the router (or proxy) holds back the CHALLENGE of the
// next login attempt (the failed one was answered at once):
//
//   - From the same address, attempts are spaced Delay(fails) apart, so
//     that parallel connections do not multiply the rate, and an attempt
//     that would wait more than Max is refused at once with
//     ErrThrottledURI. A success does not clear its address's
//     failures (or a valid account would reset the count between
//     guesses).
//   - For the same authid, an attempt waits until Delay(fails) after
//     that authid's last failure, and is never refused: anyone
//     could otherwise lock a real user out. Nor are its parallel attempts
//     spaced: the real user's attempt would then queue behind every
//     guess in flight, from any number of addresses, which is a lockout
//     by another name. A success clears its authid's failures.
//
// Safe for concurrent use; the zero value is ready.
type Throttle struct {
	mu      sync.Mutex
	addrs   throttleTable
	authids throttleTable
}

// Key says whom a login attempt is counted against; "" for none.
type Key struct {
	Addr   string // the client's IP address (its /56 for IPv6: ipv6Prefix)
	AuthID string // a digest of the authid, of bounded size
}

// Admit is asked before a login attempt's CHALLENGE: it returns how long
// to hold the CHALLENGE back, or false when the attempt is refused at once
// (its address is spaced past Max or has throttlePending attempts
// pending, or the address table is full of addresses with attempts
// pending). An admitted attempt is pending for its address until Done is
// called.
func (th *Throttle) Admit(k Key, now time.Time) (time.Duration, bool) {
	th.mu.Lock()
	defer th.mu.Unlock()
	var wait time.Duration
	if k.Addr != "" {
		e := th.addrs.getOrAdd(k.Addr, now)
		if e == nil {
			return 0, false
		}
		start := maxTime(now, e.next)
		if start.Sub(now) > Max || e.pending >= throttlePending {
			return 0, false
		}
		th.addrs.begin(e)
		e.next = start.Add(Delay(e.failsAt(now)))
		wait = start.Sub(now)
	}
	if e := th.authids.get(k.AuthID, now); e != nil {
		wait = max(wait, e.last.Add(Delay(e.failsAt(now))).Sub(now))
	}
	return wait, true
}

// Failed counts a failed login at now.
func (th *Throttle) Failed(k Key, now time.Time) {
	th.mu.Lock()
	defer th.mu.Unlock()
	if k.Addr != "" {
		if e := th.addrs.fail(k.Addr, now); e != nil {
			e.next = maxTime(e.next, now.Add(Delay(e.fails)))
			th.addrs.changed(e)
		}
	}
	if k.AuthID != "" {
		th.authids.fail(k.AuthID, now)
	}
}

// Done ends an attempt that Admit let through, once its outcome (failed,
// succeeded, or the client gone) is known at now.
func (th *Throttle) Done(k Key, now time.Time) {
	th.mu.Lock()
	defer th.mu.Unlock()
	if e := th.addrs.m[k.Addr]; e != nil && e.pending > 0 {
		th.addrs.end(e, now)
	}
}

// Succeeded forgets the failures of k's authid.
func (th *Throttle) Succeeded(k Key) {
	th.mu.Lock()
	defer th.mu.Unlock()
	if e := th.authids.m[k.AuthID]; e != nil {
		th.authids.remove(e)
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// KeyOf is whom a login attempt of authid from remote (the peer's
// "host:port") is counted against: nothing without an address (an
// in-process peer), only the authid for a Unix socket.
func KeyOf(remote, authid string) Key {
	if remote == "" {
		return Key{}
	}
	k := Key{Addr: AddrKey(remote)}
	if authid != "" {
		sum := sha256.Sum256([]byte(authid))
		k.AuthID = string(sum[:])
	}
	return k
}

// AddrKey is the throttle's key for a "host:port" address: the IP
// address, or its network of ipv6Prefix bits for IPv6; "" when it is not
// an IP address (a Unix socket's path).
func AddrKey(remote string) string {
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
		return netip.PrefixFrom(ip, ipv6Prefix).Masked().String()
	}
	return ip.String()
}
