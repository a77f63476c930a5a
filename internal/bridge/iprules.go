package bridge

import (
	"fmt"
	"log/slog"
	"math/bits"
	"net/http"
	"net/netip"
	"strings"

	"github.com/junction-wamp/junction/wamp"
)

// IPRules is a require_ip list: the networks a client's address must be in.
// The zero value has no rules and allows every address. Safe for concurrent
// use (it is not modified after ParseIPRules).
type IPRules struct {
	prefixes []netip.Prefix
}

// ParseIPRules parses require_ip entries: single addresses ("127.0.0.1",
// "::1"), CIDR networks ("10.0.0.0/8", "fd00::/8") and IPv4 address/netmask
// ("192.168.1.1/255.255.255.0", Crossbar's documented example). Host bits are
// cleared rather than refused (Crossbar refuses them, which made its own
// documentation example fail). IPv4-mapped IPv6 networks are stored as IPv4.
// The error names the entry by index: "require_ip[2]: ...".
func ParseIPRules(entries []string) (IPRules, error) {
	var r IPRules
	for i, e := range entries {
		p, err := parseIPRule(strings.TrimSpace(e))
		if err != nil {
			return IPRules{}, fmt.Errorf("require_ip[%d]: %w", i, err)
		}
		r.prefixes = append(r.prefixes, p)
	}
	return r, nil
}

// MustParseIPRules is ParseIPRules that panics on error, for tests and
// constant tables.
func MustParseIPRules(entries ...string) IPRules {
	r, err := ParseIPRules(entries)
	if err != nil {
		panic(err)
	}
	return r
}

func parseIPRule(s string) (netip.Prefix, error) {
	addr, mask, hasMask := strings.Cut(s, "/")
	a, err := netip.ParseAddr(addr)
	if err != nil || a.Zone() != "" {
		return netip.Prefix{}, fmt.Errorf("invalid IP address %q", addr)
	}
	n := a.BitLen()
	if hasMask {
		if n, err = maskBits(a, mask); err != nil {
			return netip.Prefix{}, err
		}
	}
	return unmapPrefix(netip.PrefixFrom(a, n).Masked()), nil
}

// maskBits reads a prefix length ("24") or an IPv4 netmask ("255.255.255.0").
func maskBits(a netip.Addr, mask string) (int, error) {
	if m, err := netip.ParseAddr(mask); err == nil {
		if !m.Is4() || !a.Is4() {
			return 0, fmt.Errorf("netmask %q: only IPv4 networks take a netmask", mask)
		}
		v := m.As4()
		u := uint32(v[0])<<24 | uint32(v[1])<<16 | uint32(v[2])<<8 | uint32(v[3])
		ones := bits.LeadingZeros32(^u)
		if u<<ones != 0 {
			return 0, fmt.Errorf("netmask %q is not contiguous", mask)
		}
		return ones, nil
	}
	n, ok := prefixLen(mask, a.BitLen())
	if !ok {
		return 0, fmt.Errorf("invalid prefix length %q", mask)
	}
	return n, nil
}

// prefixLen parses a decimal prefix length in [0, max].
func prefixLen(s string, max int) (int, bool) {
	if s == "" || len(s) > 3 {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= max
}

// unmapPrefix turns an IPv4-mapped IPv6 network (::ffff:10.0.0.0/104) into
// the IPv4 network it means.
func unmapPrefix(p netip.Prefix) netip.Prefix {
	if p.Addr().Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	return p
}

// Empty reports whether there are no rules (every address is allowed).
func (r IPRules) Empty() bool { return len(r.prefixes) == 0 }

// Allows reports whether addr is in one of the networks. An IPv4-mapped IPv6
// address matches IPv4 networks. With no rules, every address is allowed;
// an invalid addr is refused when there are rules.
func (r IPRules) Allows(addr netip.Addr) bool {
	if r.Empty() {
		return true
	}
	addr = addr.Unmap().WithZone("")
	for _, p := range r.prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// String lists the networks, comma-separated.
func (r IPRules) String() string {
	s := make([]string, len(r.prefixes))
	for i, p := range r.prefixes {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

// peerAddr is the direct peer's address from r.RemoteAddr ("ip:port", or a
// bare IP); X-Forwarded-For is never consulted. Invalid for a Unix socket.
func peerAddr(remote string) netip.Addr {
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		return ap.Addr()
	}
	a, _ := netip.ParseAddr(remote)
	return a
}

// Guard returns h behind the rules, for a path service that is not a
// bridge service (the metrics): a client they do not allow gets 403 with
// the bridge's JSON error body, as the bridge services answer it. With no
// rules it returns h.
func (r IPRules) Guard(h http.Handler) http.Handler {
	if r.Empty() {
		return h
	}
	refusal := &errorBody{Error: textDeniedIP, Args: wamp.List{}, Kwargs: wamp.Object{}}
	p := &pipeline{log: slog.New(slog.DiscardHandler)}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !r.Allows(peerAddr(req.RemoteAddr)) {
			p.writeJSON(w, http.StatusForbidden, refusal)
			return
		}
		h.ServeHTTP(w, req)
	})
}
