package proxy

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/loginguard"
	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/wamp"
)

// addrPeer is a peer with a client's remote address, as a TCP
// transport's.
type addrPeer struct {
	wamp.Peer
	addr string
}

func (p addrPeer) Info() wamp.PeerInfo {
	i := p.Peer.Info()
	i.RemoteAddr = p.addr
	return i
}

type attacher interface{ Attach(wamp.Peer) }

// entryKinds are the two ways in for an outside client: a router's gate,
// and a proxy worker's entry in front of a router. Each returns the
// entry, authenticating with auths, on realm1 with role user; it is shut
// down when the test ends.
var entryKinds = map[string]func(t *testing.T, auths ...auth.Authenticator) attacher{
	"router": func(t *testing.T, auths ...auth.Authenticator) attacher {
		r := backendRouter(t)
		return r.Gate(auths...)
	},
	"proxy": func(t *testing.T, auths ...auth.Authenticator) attacher {
		b := &Backend{Name: "conn1", Dial: dialer(backendRouter(t).Gate(auth.AnonymousProxy()), nil),
			Methods: []string{auth.MethodAnonymousProxy}}
		return relayTo(t, b, "user").Entry(EntryOptions{Auths: auths})
	},
}

// backendRouter is a router with realm1 (role user), shut down when the
// test ends.
func backendRouter(t *testing.T) *router.Router {
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: "realm1", Roles: []string{"user"}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Shutdown(context.Background()) })
	return r
}

// ticketHello is the HELLO of a ticket login as authid.
func ticketHello(authid string) *wamp.Hello {
	return &wamp.Hello{Realm: "realm1", Details: wamp.Dict{"authid": authid, "authmethods": []any{"ticket"}}}
}

// try is one login from addr through e: HELLO as authid, then its
// CHALLENGE answered with ticket; or (ticket "") left unanswered, the
// client gone. It returns what the client saw: how long after HELLO the
// CHALLENGE came, and how the attempt ended ("welcome", or the ABORT
// reason), as "<wait> <end>".
func try(t *testing.T, e attacher, addr, authid, ticket string) string {
	t.Helper()
	mine, theirs := local.Pair(local.Options{})
	defer mine.Close()
	go e.Attach(addrPeer{theirs, addr})
	start := time.Now()
	mine.Send(ticketHello(authid))
	m := recvMsg(t, mine)
	if _, ok := m.(*wamp.Challenge); !ok {
		return "- " + ending(m)
	}
	wait := time.Since(start)
	if ticket == "" {
		mine.Close()
		synctest.Wait() // the attempt has ended
		return fmt.Sprint(wait, " gone")
	}
	mine.Send(&wamp.Authenticate{Signature: ticket, Extra: wamp.Dict{}})
	return fmt.Sprint(wait, " ", ending(recvMsg(t, mine)))
}

func recvMsg(t *testing.T, p wamp.Peer) wamp.Message {
	t.Helper()
	m, err := p.Recv()
	if err != nil {
		t.Fatalf("recv: %v", err)
	}
	return m
}

func ending(m wamp.Message) string {
	switch m := m.(type) {
	case *wamp.Welcome:
		return "welcome"
	case *wamp.Abort:
		return string(m.Reason)
	}
	return m.Type().String()
}

// TestLoginThrottleThroughRouterAndProxy is F9 (docs/SECURITY.md) on both
// ways in: a brute force of wrong tickets against a proxy's transport is
// throttled exactly as against a router's. The same attempts, from one
// address, see the same CHALLENGE delays and the same refusals; a
// CHALLENGE left unanswered counts as a failure; the right ticket, from
// elsewhere, is only held back by its authid's failures; an unknown
// authid is refused as a wrong ticket is; a burst of parallel attempts is spaced and its excess
// refused at once.
func TestLoginThrottleThroughRouterAndProxy(t *testing.T) {
	const addr, other = "192.0.2.7:40000", "198.51.100.1:5000"
	ms := time.Millisecond
	want := []string{
		"0s wamp.error.authentication_denied",
		fmt.Sprint(200*ms, " wamp.error.authentication_denied"),
		fmt.Sprint(400*ms, " wamp.error.authentication_denied"),
		fmt.Sprint(800*ms, " gone"), // unanswered: a failure too
		fmt.Sprint(1600*ms, " wamp.error.authentication_denied"),
		fmt.Sprint(3200*ms, " welcome"),       // from another address: alice's 5 failures
		"0s wamp.error.authentication_denied", // mallory, unknown, refused alike (the address's delay passed)
		"burst: 1 challenged after 5s, 9 " + string(loginguard.ErrThrottledURI),
	}
	for name, kind := range entryKinds {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := kind(t, auth.Ticket(map[string]auth.TicketPrincipal{"alice": {Ticket: "s3cret", Role: "user"}}))
				var got []string
				for _, ticket := range []string{"guess1", "guess2", "guess3", "", "guess4"} {
					got = append(got, try(t, e, addr, "alice", ticket))
				}
				got = append(got, try(t, e, other, "alice", "s3cret"))
				got = append(got, try(t, e, addr, "mallory", "s3cret"))
				got = append(got, burst(t, e, addr, 10))
				if !slices.Equal(got, want) {
					t.Errorf("through the %s:\n got %q\nwant %q", name, got, want)
				}
			})
		})
	}
}

// burst sends n HELLOs from addr at once and reports how many got a
// CHALLENGE (and when the first came) and how many which ABORT.
func burst(t *testing.T, e attacher, addr string, n int) string {
	t.Helper()
	start := time.Now()
	var mu sync.Mutex
	var first time.Duration
	challenged, refused := 0, map[string]int{}
	var wg sync.WaitGroup
	for range n {
		mine, theirs := local.Pair(local.Options{})
		go e.Attach(addrPeer{theirs, addr})
		wg.Go(func() {
			defer mine.Close()
			mine.Send(ticketHello("alice"))
			m := recvMsg(t, mine)
			mu.Lock()
			defer mu.Unlock()
			if _, ok := m.(*wamp.Challenge); ok {
				if challenged++; challenged == 1 {
					first = time.Since(start)
				}
				return
			}
			refused[ending(m)]++
		})
	}
	wg.Wait()
	out := fmt.Sprintf("burst: %d challenged after %v", challenged, first)
	for _, k := range slices.Sorted(maps.Keys(refused)) {
		out += fmt.Sprintf(", %d %s", refused[k], k)
	}
	return out
}

// TestDynamicLoginsThroughRouterAndProxy: a dynamic authenticator's
// refusal is a failed login on both ways in, and one that could not be
// asked is no failure of the client's (its next attempt is not held
// back).
func TestDynamicLoginsThroughRouterAndProxy(t *testing.T) {
	const addr = "192.0.2.8:1"
	tests := []struct {
		name   string
		answer error
		want   []string
	}{
		{"refused", wamp.Errorf(wamp.ErrAuthenticationDenied, "no"),
			[]string{"0s wamp.error.authentication_denied", "200ms wamp.error.authentication_denied", "400ms wamp.error.authentication_denied"}},
		{"unavailable", fmt.Errorf("%w: not registered", auth.ErrUnavailable),
			[]string{"0s wamp.error.authentication_failed", "0s wamp.error.authentication_failed", "0s wamp.error.authentication_failed"}},
	}
	for name, kind := range entryKinds {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					dyn := auth.DynamicTicket(auth.DynamicOptions{Authenticate: func(context.Context, wamp.URI, string, wamp.Dict) (any, error) {
						return nil, tt.answer
					}})
					e := kind(t, dyn)
					var got []string
					for range tt.want {
						got = append(got, try(t, e, addr, "alice", "any"))
					}
					if !slices.Equal(got, tt.want) {
						t.Errorf("got %q, want %q", got, tt.want)
					}
				})
			})
		}
	}
}

// TestRefusedJoinsLoggedAndCounted: a join the proxy refuses is logged as
// the router logs it ("join refused", warn, the client's address, realm,
// authid and method, the ABORT's URI and message, never the secret) and
// counted by realm and method, an unrouted realm as OtherRealm, a method
// the entry does not have as OtherMethod; a joined
// session is counted while it lasts.
func TestRefusedJoinsLoggedAndCounted(t *testing.T) {
	const addr = "192.0.2.9:1234"
	var log logtest.Log
	synctest.Test(t, func(t *testing.T) {
		b := &Backend{Name: "conn1", Dial: dialer(backendRouter(t).Gate(auth.AnonymousProxy()), nil),
			Methods: []string{auth.MethodAnonymousProxy}}
		rl := New(Options{Routes: []Route{{Realm: "realm1", Role: "user", Backends: []*Backend{b}}}, Logger: log.Logger(slog.LevelDebug)})
		defer rl.Shutdown(context.Background())
		e := rl.Entry(EntryOptions{Auths: []auth.Authenticator{auth.Anonymous("user"),
			auth.Ticket(map[string]auth.TicketPrincipal{"alice": {Ticket: "s3cret", Role: "user"}})}})
		if got := try(t, e, addr, "alice", "guess-123"); got != "0s wamp.error.authentication_denied" {
			t.Fatalf("wrong ticket: %s", got)
		}
		mine, theirs := local.Pair(local.Options{})
		go e.Attach(addrPeer{theirs, addr})
		mine.Send(&wamp.Hello{Realm: "nowhere", Details: wamp.Dict{}})
		if m := recvMsg(t, mine); ending(m) != string(wamp.ErrNoSuchRealm) {
			t.Fatalf("unrouted realm: %v", m)
		}
		mine.Close()
		mine, theirs = local.Pair(local.Options{})
		go e.Attach(addrPeer{theirs, addr})
		mine.Send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"authmethods": []any{"x-made-up"}}})
		if m := recvMsg(t, mine); ending(m) != string(wamp.ErrNoAuthMethod) {
			t.Fatalf("no method in common: %v", m)
		}
		mine.Close()

		lines := log.Lines(t, "join refused")
		if len(lines) != 3 {
			t.Fatalf("%d join refused lines, want 2; log:\n%s", len(lines), &log)
		}
		wants := []map[string]any{
			{"level": "WARN", "peer": addr, "realm": "realm1", "authid": "alice", "authmethod": "ticket",
				"error": "wamp.error.authentication_denied", "reason": "ticket: invalid ticket"},
			{"level": "WARN", "peer": addr, "realm": "nowhere", "authmethod": "anonymous",
				"error": "wamp.error.no_such_realm", "reason": `the proxy has no route for realm "nowhere"`},
			{"level": "WARN", "realm": "realm1", "authmethods": "[x-made-up]", "error": "wamp.error.no_auth_method"},
		}
		for i, want := range wants {
			for k, v := range want {
				if got := lines[i][k]; fmt.Sprint(got) != fmt.Sprint(v) {
					t.Errorf("line %d: %s = %v, want %v", i, k, got, v)
				}
			}
		}
		if strings.Contains(log.String(), "guess-123") {
			t.Errorf("the log holds the ticket:\n%s", &log)
		}

		mine, theirs = local.Pair(local.Options{})
		go e.Attach(addrPeer{theirs, addr})
		mine.Send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{}})
		if m := recvMsg(t, mine); ending(m) != "welcome" {
			t.Fatalf("anonymous join: %v", m)
		}
		st := rl.Stats()
		want := Stats{Sessions: map[wamp.URI]int{"realm1": 1}, Joins: map[RealmMethod]uint64{{"realm1", "anonymous"}: 1},
			AuthFailures: map[RealmMethod]uint64{{"realm1", "ticket"}: 1, {OtherRealm, "anonymous"}: 1, {"realm1", OtherMethod}: 1}}
		if !reflect.DeepEqual(st, want) {
			t.Errorf("Stats = %+v, want %+v", st, want)
		}
		mine.Close()
		synctest.Wait()
		if st := rl.Stats(); len(st.Sessions) != 0 {
			t.Errorf("after the session left, Sessions = %v", st.Sessions)
		}
	})
}

// TestJoinRefusedLinesLimited: a flood of refused joins from one address
// gives at most PeerLogBurst "join refused" lines per window, then one
// line with the count held back.
func TestJoinRefusedLinesLimited(t *testing.T) {
	var log logtest.Log
	synctest.Test(t, func(t *testing.T) {
		rl := New(Options{Logger: log.Logger(slog.LevelWarn)})
		e := rl.Entry(EntryOptions{})
		for range 3 * loginguard.PeerLogBurst {
			mine, theirs := local.Pair(local.Options{})
			go e.Attach(addrPeer{theirs, "203.0.113.9:1"})
			mine.Send(&wamp.Hello{Realm: "nowhere", Details: wamp.Dict{}})
			recvMsg(t, mine)
			mine.Close()
		}
		rl.Shutdown(context.Background())
	})
	if n := len(log.Lines(t, "join refused")); n != loginguard.PeerLogBurst {
		t.Errorf("%d join refused lines, want %d", n, loginguard.PeerLogBurst)
	}
	held := log.Lines(t, "join refused: lines held back")
	if len(held) != 1 || held[0]["count"] != float64(2*loginguard.PeerLogBurst) {
		t.Errorf("held back lines: %v", held)
	}
}
