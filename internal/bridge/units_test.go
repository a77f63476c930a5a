package bridge

import (
	"errors"
	"maps"
	"net/netip"
	"testing"
	"time"
)

func TestParseTimestamp(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2011-10-14T16:59:51.123Z", time.Date(2011, 10, 14, 16, 59, 51, 123e6, time.UTC), true},
		{"2011-10-14T16:59:51.123456Z", time.Date(2011, 10, 14, 16, 59, 51, 123456e3, time.UTC), true},
		{"2011-10-14T16:59:51.123456789Z", time.Date(2011, 10, 14, 16, 59, 51, 123456789, time.UTC), true},
		{"2011-10-14T16:59:51.1Z", time.Date(2011, 10, 14, 16, 59, 51, 1e8, time.UTC), true},
		{"2011-10-14T16:59:51Z", time.Date(2011, 10, 14, 16, 59, 51, 0, time.UTC), true},
		{"2024-02-29T00:00:00Z", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), true},
		{"2011-10-14T16:59:51.1234567890Z", time.Time{}, false},
		{"2011-10-14T16:59:51.Z", time.Time{}, false},
		{"2011-10-14T16:59:51", time.Time{}, false},
		{"2011-10-14T16:59:51+00:00", time.Time{}, false},
		{"2011-10-14 16:59:51Z", time.Time{}, false},
		{"2011-10-14t16:59:51z", time.Time{}, false},
		{" 2011-10-14T16:59:51Z", time.Time{}, false},
		{"2011-13-14T16:59:51Z", time.Time{}, false},
		{"2011-04-31T16:59:51Z", time.Time{}, false},
		{"2023-02-29T00:00:00Z", time.Time{}, false},
		{"2011-10-14T24:00:00Z", time.Time{}, false},
		{"2011-10-14T16:60:00Z", time.Time{}, false},
		{"2011-10-14T16:59:60Z", time.Time{}, false},
		{"2011-10-00T16:59:59Z", time.Time{}, false},
		{"2011-1-4T6:5:1.1Z", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		got, err := parseTimestamp(tt.in)
		if (err == nil) != tt.ok || !got.Equal(tt.want) {
			t.Errorf("parseTimestamp(%q) = %v, %v", tt.in, got, err)
		}
	}
}

func TestParseQuery(t *testing.T) {
	tests := []struct {
		in   string
		want query
	}{
		{"", query{}},
		{"a=1&b=2", query{"a": "1", "b": "2"}},
		{"a=1;b=2", query{"a": "1", "b": "2"}},
		{"a=1&a=2;a=3", query{"a": "1"}},
		{"a&b=&=c", query{"b": "", "": "c"}},
		{"s=a+b%2Bc", query{"s": "a b+c"}},
		{"s=%zz%4", query{"s": "%zz%4"}},
		{"k%65y=v%3D", query{"key": "v="}},
		{"x=a=b", query{"x": "a=b"}},
	}
	for _, tt := range tests {
		if got := parseQuery(tt.in); !maps.Equal(got, tt.want) { // nil == empty
			t.Errorf("parseQuery(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseIPRules(t *testing.T) {
	tests := []struct {
		in   []string
		want string
		err  string
	}{
		{nil, "", ""},
		{[]string{"127.0.0.1"}, "127.0.0.1/32", ""},
		{[]string{"::1"}, "::1/128", ""},
		{[]string{"10.1.2.3/8"}, "10.0.0.0/8", ""},
		{[]string{"192.168.1.1/255.255.255.0"}, "192.168.1.0/24", ""},
		{[]string{"0.0.0.0/0.0.0.0"}, "0.0.0.0/0", ""},
		{[]string{" fd00::/8 "}, "fd00::/8", ""},
		{[]string{"::ffff:10.0.0.0/104"}, "10.0.0.0/8", ""},
		{[]string{"::ffff:10.0.0.1"}, "10.0.0.1/32", ""},
		{[]string{"1.2.3.4", "nope"}, "", `require_ip[1]: invalid IP address "nope"`},
		{[]string{"10.0.0.0/33"}, "", `require_ip[0]: invalid prefix length "33"`},
		{[]string{"10.0.0.0/255.0.255.0"}, "", `require_ip[0]: netmask "255.0.255.0" is not contiguous`},
		{[]string{"fd00::/255.0.0.0"}, "", `require_ip[0]: netmask "255.0.0.0": only IPv4 networks take a netmask`},
		{[]string{"fe80::1%eth0"}, "", `require_ip[0]: invalid IP address "fe80::1%eth0"`},
		{[]string{"10.0.0.0/"}, "", `require_ip[0]: invalid prefix length ""`},
		{[]string{"10.0.0.0/-1"}, "", `require_ip[0]: invalid prefix length "-1"`},
	}
	for _, tt := range tests {
		r, err := ParseIPRules(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseIPRules(%q) error = %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || r.String() != tt.want {
			t.Errorf("ParseIPRules(%q) = %s, %v; want %s", tt.in, r, err, tt.want)
		}
	}
}

func TestIPRulesAllows(t *testing.T) {
	r := MustParseIPRules("192.168.1.0/255.255.255.0", "2001:db8::/32", "127.0.0.1")
	tests := map[string]bool{
		"192.168.1.200": true, "192.168.2.1": false, "::ffff:192.168.1.5": true,
		"2001:db8::5": true, "2001:db9::5": false, "127.0.0.1": true, "127.0.0.2": false,
		"::ffff:127.0.0.1": true, "fe80::1%eth0": false,
	}
	for a, want := range tests {
		if got := r.Allows(netip.MustParseAddr(a)); got != want {
			t.Errorf("Allows(%s) = %v", a, got)
		}
	}
	if r.Allows(netip.Addr{}) {
		t.Error("invalid address allowed")
	}
	if !(IPRules{}).Allows(netip.Addr{}) {
		t.Error("empty rules refused")
	}
	if peerAddr("[::1]:80") != netip.MustParseAddr("::1") || peerAddr("10.0.0.1") != netip.MustParseAddr("10.0.0.1") ||
		peerAddr("@").IsValid() {
		t.Error("peerAddr")
	}
}

func TestNonceCache(t *testing.T) {
	c := NewNonceCache(3)
	t0 := time.Unix(1000, 0)
	use := func(key string, nonce uint64, mac byte, at time.Time) error {
		return c.Use(NonceUse{Key: key, Nonce: nonce, MAC: testMAC(mac), TTL: time.Minute}, at)
	}
	if use("k", 1, 1, t0) != nil || !errors.Is(use("k", 1, 2, t0.Add(time.Second)), ErrReplay) {
		t.Fatal("nonce replayed within the ttl accepted")
	}
	if !errors.Is(use("k", 2, 1, t0.Add(time.Second)), ErrReplay) {
		t.Fatal("MAC replayed with another nonce within the ttl accepted")
	}
	if use("other", 1, 3, t0) != nil {
		t.Fatal("same nonce of another key refused")
	}
	if use("k", 1, 1, t0.Add(time.Minute)) != nil {
		t.Fatal("expired request refused")
	}
	// Bounded: without a window, the oldest entries go first.
	for n := uint64(10); n < 20; n++ {
		if err := use("k", n, byte(n), t0.Add(time.Minute)); err != nil {
			t.Fatalf("nonce %d: %v", n, err)
		}
	}
	if c.Len() != 3 {
		t.Fatalf("Len = %d, want 3", c.Len())
	}
	if use("k", 10, 10, t0.Add(time.Minute)) != nil {
		t.Fatal("evicted request still remembered")
	}
	if use("k", 19, 100, t0.Add(time.Minute)) == nil || use("k", 100, 19, t0.Add(time.Minute)) == nil {
		t.Fatal("recent request forgotten")
	}
	// Everything expires.
	use("k", 99, 99, t0.Add(time.Hour))
	if c.Len() != 1 || len(c.nonces) != 1 || len(c.macs) != 1 {
		t.Fatalf("after expiry: Len %d, maps %d %d", c.Len(), len(c.nonces), len(c.macs))
	}
}

// TestNonceCacheWindow: requests inside a timestamp window are never
// forgotten before they expire: a full cache refuses the next one (and
// records nothing), takes one again as soon as the oldest expires, and
// still makes room by forgetting a request recorded without a window.
func TestNonceCacheWindow(t *testing.T) {
	c := NewNonceCache(2)
	t0 := time.Unix(1000, 0)
	use := func(nonce uint64, at time.Time, window bool) error {
		return c.Use(NonceUse{Key: "k", Nonce: nonce, MAC: testMAC(byte(nonce)), TTL: time.Minute, Window: window}, at)
	}
	if use(1, t0, false) != nil || use(2, t0.Add(time.Second), true) != nil || use(3, t0.Add(2*time.Second), true) != nil {
		t.Fatal("room made by forgetting a request without a window refused")
	}
	if err := use(4, t0.Add(3*time.Second), true); !errors.Is(err, ErrNoncesFull) {
		t.Fatalf("full of requests inside their window: %v, want ErrNoncesFull", err)
	}
	if err := use(5, t0.Add(4*time.Second), false); !errors.Is(err, ErrNoncesFull) {
		t.Fatalf("full, without a window: %v, want ErrNoncesFull", err)
	}
	if c.Len() != 2 || !errors.Is(use(2, t0.Add(5*time.Second), true), ErrReplay) || !errors.Is(use(3, t0.Add(5*time.Second), true), ErrReplay) {
		t.Fatal("a request inside its window forgotten")
	}
	if err := use(4, t0.Add(61*time.Second), true); err != nil {
		t.Fatalf("once the oldest expired: %v", err)
	}
}

// testMAC is a MAC for the cache tests: 32 bytes that differ by b.
func testMAC(b byte) []byte {
	m := make([]byte, 32)
	m[0] = b
	return m
}

func TestNonceCacheMemoryBounded(t *testing.T) {
	c := NewNonceCache(100)
	t0 := time.Unix(0, 0)
	for n := uint64(0); n < 10000; n++ {
		c.Use(NonceUse{Key: "k", Nonce: n, MAC: Sign("s", "k", "", "", "", []byte{byte(n), byte(n >> 8)}), TTL: time.Hour}, t0)
		if c.Len() > 100 || len(c.nonces) > 100 || len(c.macs) > 100 || len(c.order) > 200 {
			t.Fatalf("n=%d: Len %d, maps %d %d, slice %d", n, c.Len(), len(c.nonces), len(c.macs), len(c.order))
		}
	}
}

func TestStatusTable(t *testing.T) {
	tests := []struct {
		uri    string
		status int
		remote int
	}{
		{"wamp.error.timeout", 504, 504},
		{"junction.error.unavailable", 503, 503},
		{"wamp.error.not_authorized", 403, 200},
		{"wamp.error.authentication_denied", 401, 200},
		{"wamp.error.authentication_failed", 401, 200},
		{"wamp.error.no_such_procedure", 404, 200},
		{"com.example.app_error", 500, 200},
	}
	for _, tt := range tests {
		if got := HTTPStatus(wampURI(tt.uri)); got != tt.status {
			t.Errorf("HTTPStatus(%s) = %d", tt.uri, got)
		}
		if got := remoteStatus(wampURI(tt.uri)); got != tt.remote {
			t.Errorf("remoteStatus(%s) = %d", tt.uri, got)
		}
	}
}
