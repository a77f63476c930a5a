package connlimit

import (
	"net/netip"
	"sync"
)

// Refusal says which cap a Counter's Take reached, if any.
type Refusal int

const (
	Admitted   Refusal = iota // counted in
	AtMax                     // the cap in all was reached
	AtMaxPerIP                // the cap of the client's IP address was reached
)

// Counter counts what is open at once, in all and by client IP address,
// against two caps: a Listener's connections, and the HTTP bridge's
// streams. Safe for concurrent use.
type Counter struct {
	max, maxPerIP int // 0: no cap

	mu    sync.Mutex // guards the fields below
	open  int
	perIP map[netip.Addr]int // only with maxPerIP
}

// NewCounter returns a Counter with caps max in all and maxPerIP per
// client IP address; 0 means no cap.
func NewCounter(max, maxPerIP int) *Counter {
	c := &Counter{max: max, maxPerIP: maxPerIP}
	if maxPerIP > 0 {
		c.perIP = map[netip.Addr]int{}
	}
	return c
}

// PerIP reports whether the Counter caps per client IP address.
func (c *Counter) PerIP() bool { return c.perIP != nil }

// Take counts one in from ip, or refuses it when a cap is reached. perIP
// false (a client without an IP address, or no cap per IP) leaves the cap
// per IP address out; Release must be given the same ip and perIP.
func (c *Counter) Take(ip netip.Addr, perIP bool) Refusal {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.max > 0 && c.open >= c.max:
		return AtMax
	case perIP && c.perIP[ip] >= c.maxPerIP:
		return AtMaxPerIP
	}
	c.open++
	if perIP {
		c.perIP[ip]++
	}
	return Admitted
}

// Release counts one out that Take counted in.
func (c *Counter) Release(ip netip.Addr, perIP bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open--
	if !perIP {
		return
	}
	if c.perIP[ip]--; c.perIP[ip] <= 0 {
		delete(c.perIP, ip)
	}
}

// Open returns how many are counted in now.
func (c *Counter) Open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open
}
