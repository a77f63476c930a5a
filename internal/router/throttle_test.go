package router

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/wamp"
)

// addrPeer is a fakePeer with a remote address.
type addrPeer struct {
	*fakePeer
	addr string
}

func (p addrPeer) Info() wamp.PeerInfo { return wamp.PeerInfo{Transport: "fake", RemoteAddr: p.addr} }

// attachFrom starts a session on g over a fake peer from addr.
func attachFrom(t testing.TB, g *Gate, addr string) *client {
	c := &client{t: t, p: newFakePeer(256), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		g.Attach(addrPeer{c.p, addr})
	}()
	return c
}

func TestThrottleDelay(t *testing.T) {
	ms := time.Millisecond
	want := []time.Duration{0, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 5000 * ms, 5000 * ms}
	for n, d := range want {
		if got := throttleDelay(n); got != d {
			t.Errorf("throttleDelay(%d) = %v, want %v", n, got, d)
		}
	}
	if throttleMaxFails != 6 {
		t.Errorf("throttleMaxFails = %d, want 6", throttleMaxFails)
	}
}

// TestThrottleAddress: after each failure from an address, its next
// attempt waits throttleDelay(failures); attempts waiting at once are
// spaced, and one that would wait past throttleMax is refused; failures
// are forgotten one per throttleDecay of quiet.
func TestThrottleAddress(t *testing.T) {
	var th throttle
	a := loginKey{addr: "192.0.2.1"}
	t0 := time.Unix(1_000_000, 0)
	wantAdmit(t, &th, a, t0, 0)
	now := t0
	for n := 1; n <= 8; n++ {
		th.failed(a, now)
		now = now.Add(time.Millisecond)
		wantAdmit(t, &th, a, now, throttleDelay(n)-time.Millisecond)
		now = now.Add(throttleDelay(n))
	}
	wantAdmit(t, &th, loginKey{addr: "192.0.2.2"}, now, 0)

	// Quiet: one failure forgotten per throttleDecay.
	last := now
	th.failed(a, last)
	e := th.addrs.m[a.addr]
	for k := range throttleMaxFails + 1 {
		if got, want := e.failsAt(last.Add(time.Duration(k)*throttleDecay)), max(throttleMaxFails-k, 0); got != want {
			t.Errorf("failures after %d quiet periods = %d, want %d", k, got, want)
		}
	}
	wantAdmit(t, &th, a, last.Add(time.Duration(throttleMaxFails)*throttleDecay), 0)
	if len(th.addrs.m) != 0 || len(th.addrs.evictable) != 0 {
		t.Errorf("forgotten entry still held: %d, %d", len(th.addrs.m), len(th.addrs.evictable))
	}
}

// TestThrottleParallel: attempts from one address that arrive together
// after a failure are spaced throttleDelay apart; those that would wait
// more than throttleMax are refused at once.
func TestThrottleParallel(t *testing.T) {
	var th throttle
	a := loginKey{addr: "192.0.2.1"}
	t0 := time.Unix(1_000_000, 0)
	th.failed(a, t0)
	admitted := 0
	for k := 1; ; k++ {
		wait, ok := th.admit(a, t0)
		if !ok {
			break
		}
		if wait != time.Duration(k)*throttleInitial {
			t.Fatalf("attempt %d waits %v, want %v", k, wait, time.Duration(k)*throttleInitial)
		}
		admitted++
	}
	if want := int(throttleMax / throttleInitial); admitted != want {
		t.Errorf("%d attempts admitted at once, want %d", admitted, want)
	}
	wantAdmit(t, &th, a, t0.Add(throttleMax), throttleInitial)
}

// TestThrottleAuthID: failures for an authid delay its next attempt from
// any address, never refuse it, and are cleared by a success; a success
// leaves the address's failures alone.
func TestThrottleAuthID(t *testing.T) {
	var th throttle
	t0 := time.Unix(1_000_000, 0)
	for i := range 3 {
		th.failed(loginKey{addr: fmt.Sprintf("192.0.2.%d", i+1), authid: "alice"}, t0)
	}
	fresh := loginKey{addr: "198.51.100.1", authid: "alice"}
	for range 100 {
		wantAdmit(t, &th, fresh, t0, throttleDelay(3))
	}
	wantAdmit(t, &th, loginKey{addr: "198.51.100.1", authid: "bob"}, t0, 0)
	wantAdmit(t, &th, loginKey{authid: "alice"}, t0.Add(300*time.Millisecond), throttleDelay(3)-300*time.Millisecond)

	th.succeeded(loginKey{addr: "192.0.2.1", authid: "alice"})
	wantAdmit(t, &th, fresh, t0.Add(time.Second), 0)
	wantAdmit(t, &th, loginKey{addr: "192.0.2.1"}, t0, throttleDelay(1))
}

// TestThrottleMemoryBounded: a flood of failures from distinct addresses
// and authids keeps each table at throttleEntries, dropping the oldest.
func TestThrottleMemoryBounded(t *testing.T) {
	var th throttle
	t0 := time.Unix(1_000_000, 0)
	for i := range 3 * throttleEntries {
		k := loginKey{addr: fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&255, i&255), authid: fmt.Sprint("user", i)}
		th.failed(k, t0.Add(time.Duration(i)*time.Microsecond))
	}
	for name, tb := range map[string]*throttleTable{"addresses": &th.addrs, "authids": &th.authids} {
		if len(tb.m) != throttleEntries || len(tb.evictable) != throttleEntries {
			t.Errorf("%s: %d entries, %d evictable, want %d", name, len(tb.m), len(tb.evictable), throttleEntries)
		}
	}
	last := 3*throttleEntries - 1
	if th.addrs.m[fmt.Sprintf("10.%d.%d.%d", last>>16, last>>8&255, last&255)] == nil || th.addrs.m["10.0.0.0"] != nil {
		t.Error("the newest failure was dropped, or the oldest kept")
	}
}

// wantAdmit checks that an attempt is admitted at now with a wait of want,
// and ends it (done) at once, without an outcome.
func wantAdmit(t *testing.T, th *throttle, k loginKey, now time.Time, want time.Duration) {
	t.Helper()
	wait, ok := th.admit(k, now)
	if !ok || wait != want {
		t.Fatalf("admit(%+v) = %v, %v; want %v, true", k, wait, ok, want)
	}
	th.done(k, now)
}

// TestThrottlePending: an address with no failure yet may have
// throttlePending attempts in progress at once (failures count only once
// answered, so a burst that holds back its answers would otherwise all get
// a CHALLENGE); one more is refused, and an attempt that ends makes room.
func TestThrottlePending(t *testing.T) {
	var th throttle
	a := loginKey{addr: "192.0.2.1", authid: "alice"}
	t0 := time.Unix(1_000_000, 0)
	for k := range throttlePending {
		if wait, ok := th.admit(a, t0); !ok || wait != 0 {
			t.Fatalf("attempt %d: admit = %v, %v; want 0, true", k+1, wait, ok)
		}
	}
	if _, ok := th.admit(a, t0); ok {
		t.Fatalf("attempt %d admitted with %d pending", throttlePending+1, throttlePending)
	}
	wantAdmit(t, &th, loginKey{addr: "192.0.2.2", authid: "alice"}, t0, 0)
	th.done(a, t0)
	wantAdmit(t, &th, a, t0, 0)
	for range throttlePending - 1 {
		th.done(a, t0)
	}
	if len(th.addrs.m) != 0 || len(th.addrs.evictable) != 0 {
		t.Errorf("an address with nothing pending is still held: %d, %d", len(th.addrs.m), len(th.addrs.evictable))
	}
}

func TestAddrKey(t *testing.T) {
	tests := map[string]string{
		"192.0.2.1:4000":          "192.0.2.1",
		"[::ffff:192.0.2.1]:4000": "192.0.2.1",
		"[2001:db8:1:2:3::4]:80":  "2001:db8:1::/56",
		"[2001:db8:1:2:ff::9]:81": "2001:db8:1::/56",
		"[2001:db8:1:ff::1]:82":   "2001:db8:1::/56",
		"[2001:db8:1:100::1]:83":  "2001:db8:1:100::/56",
		"[fe80::1%eth0]:80":       "fe80::/56",
		"/run/junction.sock":      "",
		"@":                       "",
		"host.example:80":         "",
	}
	for in, want := range tests {
		if got := addrKey(in); got != want {
			t.Errorf("addrKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLoginKeyExemptions(t *testing.T) {
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	req := func(addr string) *auth.Request {
		return &auth.Request{AuthID: "alice", Peer: wamp.PeerInfo{RemoteAddr: addr}}
	}
	outside, internal := r.Gate(), r.NewGate(GateOptions{Internal: true})
	tests := []struct {
		name       string
		g          *Gate
		addr       string
		addr2, id2 bool
	}{
		{"tcp", outside, "192.0.2.1:1", true, true},
		{"unix socket: authid only", outside, "/run/j.sock", false, true},
		{"local peer", outside, "", false, false},
		{"internal gate", internal, "192.0.2.1:1", false, false},
	}
	for _, tt := range tests {
		k := (&session{gate: tt.g}).loginKeyOf(req(tt.addr))
		if (k.addr != "") != tt.addr2 || (k.authid != "") != tt.id2 {
			t.Errorf("%s: key %+v", tt.name, k)
		}
	}
}

// loginMethod is an authentication method seen from a client: its
// authenticator, knowing principal alice, and how a client answers a
// CHALLENGE with alice's secret (right true) or a wrong one.
type loginMethod struct {
	name   string
	a      auth.Authenticator
	hello  func(authid string) wamp.Dict
	answer func(t *testing.T, ch *wamp.Challenge, right bool) string
}

func loginMethods(t *testing.T) []loginMethod {
	hello := func(method string) func(string) wamp.Dict {
		return func(authid string) wamp.Dict {
			return wamp.Dict{"authid": authid, "authmethods": []any{method}}
		}
	}
	secret := func(right bool) string {
		if right {
			return "s3cret"
		}
		return "guess"
	}
	key := func(b byte) ed25519.PrivateKey { return ed25519.NewKeyFromSeed(slices.Repeat([]byte{b}, 32)) }
	alice := key(1)
	return []loginMethod{
		{"ticket", auth.Ticket(map[string]auth.TicketPrincipal{"alice": {Ticket: "s3cret", Role: "user"}}), hello("ticket"),
			func(_ *testing.T, _ *wamp.Challenge, right bool) string { return secret(right) }},
		{"wampcra", auth.WampCRA(map[string]auth.CRAUser{"alice": {Secret: "s3cret", Role: "user", Salt: "pepper", Iterations: 10, KeyLen: 16}}), hello("wampcra"),
			func(_ *testing.T, ch *wamp.Challenge, right bool) string {
				k := auth.DeriveKey(secret(right), ch.Extra["salt"].(string), ch.Extra["iterations"].(int), ch.Extra["keylen"].(int))
				return auth.SignWampCRA(k, ch.Extra["challenge"].(string))
			}},
		{"cryptosign", auth.Cryptosign(map[string]auth.CryptosignPrincipal{
			"alice": {AuthorizedKeys: []string{hex.EncodeToString(alice.Public().(ed25519.PublicKey))}, Role: "user"}}), hello("cryptosign"),
			func(t *testing.T, ch *wamp.Challenge, right bool) string {
				k := key(2)
				if right {
					k = alice
				}
				sig, err := auth.SignCryptosign(k, ch.Extra["challenge"].(string))
				if err != nil {
					t.Fatal(err)
				}
				return sig
			}},
	}
}

// login runs one login attempt of c: HELLO for authid, then (when the
// CHALLENGE comes) the answer. It returns the CHALLENGE and the last
// message, WELCOME or ABORT.
func login(t *testing.T, c *client, m loginMethod, authid string, right bool) (*wamp.Challenge, wamp.Message) {
	t.Helper()
	c.send(&wamp.Hello{Realm: "realm1", Details: m.hello(authid)})
	ch := expect[*wamp.Challenge](c)
	c.send(&wamp.Authenticate{Signature: m.answer(t, ch, right), Extra: wamp.Dict{}})
	return ch, c.recv()
}

// TestLoginFailures is F9 (docs/SECURITY.md) through the router, for each
// method, from one address: a wrong secret is refused at once with
// authentication_denied; an unknown authid gets a CHALLENGE like alice's
// and exactly the same ABORT, which names neither; each attempt after a
// failure has its CHALLENGE held back by the throttle's delay, the right
// secret's too, which then joins.
func TestLoginFailures(t *testing.T) {
	for _, m := range loginMethods(t) {
		t.Run(m.name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				g := r.Gate(m.a)
				const addr = "192.0.2.7:40000"
				start := time.Now()
				chReal, abortReal := login(t, attachFrom(t, g, addr), m, "alice", false)
				if time.Since(start) != 0 {
					t.Errorf("first attempt took %v, want no delay", time.Since(start))
				}
				real := wantDenied(t, abortReal)

				unknown := attachFrom(t, g, addr)
				chDecoy := heldBack(unknown, m.hello("mallory"), throttleDelay(1))
				unknown.send(&wamp.Authenticate{Signature: m.answer(t, chDecoy, true), Extra: wamp.Dict{}})
				answered := time.Now()
				decoy := wantDenied(t, unknown.recv())
				if time.Since(answered) != 0 {
					t.Errorf("ABORT came %v after AUTHENTICATE, want at once", time.Since(answered))
				}
				if chDecoy.AuthMethod != chReal.AuthMethod || !slices.Equal(slices.Sorted(maps.Keys(chDecoy.Extra)), slices.Sorted(maps.Keys(chReal.Extra))) {
					t.Errorf("unknown authid's CHALLENGE %+v, alice's %+v", chDecoy, chReal)
				}
				if decoy.Reason != real.Reason || decoy.Details["message"] != real.Details["message"] {
					t.Errorf("unknown authid's ABORT %+v, wrong secret's %+v", decoy, real)
				}
				for _, id := range []string{"alice", "mallory"} {
					if strings.Contains(fmt.Sprint(real.Details, decoy.Details), id) {
						t.Errorf("ABORT details %v, %v name %s", real.Details, decoy.Details, id)
					}
				}

				right := attachFrom(t, g, addr)
				ch := heldBack(right, m.hello("alice"), throttleDelay(2))
				right.send(&wamp.Authenticate{Signature: m.answer(t, ch, true), Extra: wamp.Dict{}})
				expect[*wamp.Welcome](right)
			})
		})
	}
}

// heldBack sends HELLO with details and checks that the CHALLENGE comes
// after d, not before.
func heldBack(c *client, details wamp.Dict, d time.Duration) *wamp.Challenge {
	c.t.Helper()
	return heldBackAll(c.t, d, attempt{c, details})[0]
}

func wantDenied(t *testing.T, m wamp.Message) *wamp.Abort {
	t.Helper()
	a, ok := m.(*wamp.Abort)
	if !ok || a.Reason != wamp.ErrAuthenticationDenied {
		t.Fatalf("got %T %+v, want ABORT %s", m, m, wamp.ErrAuthenticationDenied)
	}
	return a
}

// TestLoginThrottleFlood scales F9's attack down (docs/SECURITY.md): 30 wrong
// tickets in a row from one address take (fake) time that grows with the
// failures, not none; the right ticket still works afterwards; a burst of
// parallel attempts is spaced out, and those that would wait past
// throttleMax are refused at once.
func TestLoginThrottleFlood(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		m := loginMethods(t)[0]
		g := r.Gate(m.a)
		const addr = "192.0.2.9:1234"
		start := time.Now()
		var want time.Duration
		for n := range 30 {
			_, last := login(t, attachFrom(t, g, addr), m, "alice", false)
			wantDenied(t, last)
			want += throttleDelay(n)
		}
		if took := time.Since(start); took < want {
			t.Errorf("30 wrong tickets took %v, want at least %v", took, want)
		}
		if _, last := login(t, attachFrom(t, g, addr), m, "alice", true); last.Type() != wamp.TypeWelcome {
			t.Fatalf("right ticket after the attack: %+v", last)
		}

		var wg sync.WaitGroup
		var mu sync.Mutex
		reasons := map[wamp.URI]int{}
		for range 40 {
			c := attachFrom(t, g, addr)
			wg.Go(func() {
				c.send(&wamp.Hello{Realm: "realm1", Details: m.hello("alice")})
				var reason wamp.URI = "challenged"
				if a, ok := c.recv().(*wamp.Abort); ok {
					reason = a.Reason
				}
				mu.Lock()
				reasons[reason]++
				mu.Unlock()
				c.p.Close()
			})
		}
		wg.Wait()
		if reasons[ErrThrottledURI] == 0 || reasons["challenged"] == 0 || len(reasons) != 2 {
			t.Errorf("40 parallel attempts: %v, want some challenged and the rest %s", reasons, ErrThrottledURI)
		}
	})
}

// TestAnswerBeforeHeldBackChallenge: a client that sends AUTHENTICATE
// while its CHALLENGE is held back breaks the protocol; the CHALLENGE is
// then never sent.
func TestAnswerBeforeHeldBackChallenge(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		c, _ := heldBackAfterFailure(t, r, "192.0.2.5:1")
		c.send(&wamp.Authenticate{Signature: "s3cret", Extra: wamp.Dict{}})
		c.expectAbort(wamp.ErrProtocolViolation)
		time.Sleep(throttleMax)
		c.quiet()
	})
}

// heldBackAfterFailure fails a ticket login for alice from addr on a new
// gate of r, then starts another one from addr, whose CHALLENGE the
// throttle holds back.
func heldBackAfterFailure(t *testing.T, r *Router, addr string) (*client, *Gate) {
	t.Helper()
	m := loginMethods(t)[0]
	g := r.Gate(m.a)
	_, last := login(t, attachFrom(t, g, addr), m, "alice", false)
	wantDenied(t, last)
	c := attachFrom(t, g, addr)
	c.send(&wamp.Hello{Realm: "realm1", Details: m.hello("alice")})
	return c, g
}

// TestLoginThrottleExempt: the node's own sessions (an Internal gate) and
// in-process peers (no address) are never held back.
func TestLoginThrottleExempt(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		m := loginMethods(t)[0]
		gates := map[string]*Gate{
			"internal": r.NewGate(GateOptions{Auths: []auth.Authenticator{m.a}, Internal: true}),
			"local":    r.Gate(m.a),
		}
		addrs := map[string]string{"internal": "192.0.2.3:1", "local": ""}
		for name, g := range gates {
			start := time.Now()
			for range 5 {
				_, last := login(t, attachFrom(t, g, addrs[name]), m, "alice", false)
				wantDenied(t, last)
			}
			if time.Since(start) != 0 {
				t.Errorf("%s: 5 failures took %v, want no delay", name, time.Since(start))
			}
		}
	})
}

// TestUnansweredChallengeFails is F9 (docs/SECURITY.md): a CHALLENGE that
// gets no valid AUTHENTICATE counts as a failed login for its address and
// its authid, however the attempt ends, so that a client cannot sample
// CHALLENGEs unthrottled by never answering them. An attempt that ends
// while its CHALLENGE is still held back got none, and is not counted.
func TestUnansweredChallengeFails(t *testing.T) {
	const joinTimeout = 3 * time.Second
	tests := []struct {
		name    string
		abandon func(c *client) // after the CHALLENGE
	}{
		{"client gone", func(c *client) { c.p.Close() }},
		{"client ABORT", func(c *client) {
			c.send(&wamp.Abort{Details: wamp.Dict{}, Reason: "wamp.close.goodbye_and_out"})
		}},
		{"join timeout", func(c *client) {
			time.Sleep(joinTimeout)
			c.expectAbort(ErrJoinTimeoutURI)
		}},
		{"protocol violation", func(c *client) {
			c.send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{}})
			c.expectAbort(wamp.ErrProtocolViolation)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				m := loginMethods(t)[0]
				g := r.NewGate(GateOptions{Auths: []auth.Authenticator{m.a}, JoinTimeout: joinTimeout})
				const addr = "192.0.2.7:1"
				c := attachFrom(t, g, addr)
				c.send(&wamp.Hello{Realm: "realm1", Details: m.hello("alice")})
				expect[*wamp.Challenge](c)
				tt.abandon(c)
				c.waitDone()
				heldBackAll(t, throttleDelay(1),
					attempt{attachFrom(t, g, addr), m.hello("bob")},               // the address failed once
					attempt{attachFrom(t, g, "198.51.100.1:1"), m.hello("alice")}, // the authid too
				)
			})
		})
	}
	t.Run("left before its CHALLENGE", func(t *testing.T) {
		bubble(t, Options{}, func(t *testing.T, r *Router) {
			c, g := heldBackAfterFailure(t, r, "192.0.2.7:1")
			c.quiet()
			c.p.Close()
			c.waitDone()
			heldBackAll(t, throttleDelay(1), attempt{attachFrom(t, g, "198.51.100.1:1"), loginMethods(t)[0].hello("alice")})
		})
	})
}

// attempt is a login attempt about to send HELLO.
type attempt struct {
	c     *client
	hello wamp.Dict
}

// heldBackAll sends the attempts' HELLOs at once and checks that each
// CHALLENGE comes after d, not before; it returns them.
func heldBackAll(t testing.TB, d time.Duration, attempts ...attempt) []*wamp.Challenge {
	t.Helper()
	for _, a := range attempts {
		a.c.send(&wamp.Hello{Realm: "realm1", Details: a.hello})
	}
	time.Sleep(d - time.Nanosecond)
	for _, a := range attempts {
		a.c.quiet()
	}
	time.Sleep(time.Nanosecond)
	var out []*wamp.Challenge
	for _, a := range attempts {
		out = append(out, expect[*wamp.Challenge](a.c))
	}
	return out
}

// TestThrottleEviction: in a full table, an entry with nothing left to
// remember goes first, else the one that would be forgotten soonest, not
// the one whose last failure is oldest (a guesser's six failures would
// otherwise be forgotten for a flood of single failures).
func TestThrottleEviction(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	tables := map[string]struct {
		key   func(i int) loginKey
		table func(th *throttle) *throttleTable
	}{
		"addresses": {func(i int) loginKey { return loginKey{addr: fmt.Sprint("addr", i)} }, func(th *throttle) *throttleTable { return &th.addrs }},
		"authids":   {func(i int) loginKey { return loginKey{authid: fmt.Sprint("id", i)} }, func(th *throttle) *throttleTable { return &th.authids }},
	}
	for name, tb := range tables {
		for _, later := range []time.Duration{time.Minute, 2 * time.Second} {
			t.Run(fmt.Sprint(name, " ", later, " later"), func(t *testing.T) {
				var th throttle
				guesser := tb.key(-1)
				for range throttleMaxFails {
					th.failed(guesser, t0) // remembered for 3 minutes
				}
				for i := range throttleEntries - 1 {
					th.failed(tb.key(i), t0.Add(time.Second)) // for 30 s
				}
				now := t0.Add(later)
				th.failed(tb.key(throttleEntries), now)
				table := tb.table(&th)
				want := throttleMaxFails - int(later/throttleDecay)
				if e := table.m[keyOf(guesser)]; e == nil || e.failsAt(now) != want {
					t.Fatalf("the guesser's entry %+v was dropped or changed, want %d failures", e, want)
				}
				if n := len(table.m); n > throttleEntries || len(table.evictable) != n {
					t.Errorf("%d entries, %d evictable", n, len(table.evictable))
				}
			})
		}
	}
}

// keyOf is k's key in its table, for a test that uses only one of them.
func keyOf(k loginKey) string { return k.addr + k.authid }

// TestThrottleKeepsPending: an address with attempts pending is never
// dropped from the table; when every entry has some, an attempt from a
// new address is refused, until one of them is done.
func TestThrottleKeepsPending(t *testing.T) {
	var th throttle
	t0 := time.Unix(1_000_000, 0)
	addr := func(i int) loginKey { return loginKey{addr: fmt.Sprint("addr", i)} }
	for i := range throttleEntries {
		if _, ok := th.admit(addr(i), t0); !ok {
			t.Fatalf("attempt %d refused", i)
		}
	}
	th.failed(addr(1), t0)
	fresh := loginKey{addr: "198.51.100.1", authid: "alice"}
	if _, ok := th.admit(fresh, t0); ok {
		t.Fatal("a new address admitted into a table full of pending attempts")
	}
	if len(th.addrs.m) != throttleEntries || th.addrs.m[addr(0).addr] == nil {
		t.Fatalf("%d addresses, the first one %v", len(th.addrs.m), th.addrs.m[addr(0).addr])
	}
	wantAdmit(t, &th, loginKey{authid: "alice"}, t0, 0) // no address: not refused
	th.done(addr(1), t0)                                // failed: kept, now evictable
	wantAdmit(t, &th, fresh, t0, 0)
	if e := th.addrs.m[addr(1).addr]; e != nil {
		t.Errorf("the failed address %+v was kept, want it evicted for the new one", e)
	}
	th.done(addr(0), t0)
	wantAdmit(t, &th, fresh, t0, 0)
}
