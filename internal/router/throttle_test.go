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
	"github.com/junction-wamp/junction/internal/loginguard"
	"github.com/junction-wamp/junction/wamp"
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
		if (k.Addr != "") != tt.addr2 || (k.AuthID != "") != tt.id2 {
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
				chDecoy := heldBack(unknown, m.hello("mallory"), loginguard.Delay(1))
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
				ch := heldBack(right, m.hello("alice"), loginguard.Delay(2))
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
// loginguard.Max are refused at once.
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
			want += loginguard.Delay(n)
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
		time.Sleep(loginguard.Max)
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
				heldBackAll(t, loginguard.Delay(1),
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
			heldBackAll(t, loginguard.Delay(1), attempt{attachFrom(t, g, "198.51.100.1:1"), loginMethods(t)[0].hello("alice")})
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
