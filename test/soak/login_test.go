//go:build soak

package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/test/internal/nodeproc"
	"github.com/junction-wamp/junction/wamp"
)

// The login scenario: loginAttempts wrong logins from the attacker's
// address, first loginSpacing of them one after another (each waits for
// its answer), to see the CHALLENGE held back as documented, then the
// rest from loginWorkers connections at once, as fast as the node answers.
const (
	loginAttempts = 1000
	loginSpacing  = 7
	loginWorkers  = 32
)

// The login throttle as docs/configuration.md ("Failed logins") states
// it: after n failures the next CHALLENGE from the address is held back
// 200 ms doubled n-1 times, at most 5 s; an attempt that would wait more
// is refused at once.
const (
	throttleInitial = 200 * time.Millisecond
	throttleMax     = 5 * time.Second
)

// How the checks measure the throttle from the client's side.
const (
	// spacingTolerance: two CHALLENGEs may arrive this much closer than
	// the delay between them (each travels on its own connection).
	spacingTolerance = 50 * time.Millisecond
	// promptLogin bounds a login that must not be held back: from another
	// address, while the attacker's is held back up to throttleMax.
	promptLogin = time.Second
	// heldLogin bounds a login that may be held back (throttleMax), with
	// room for a loaded machine.
	heldLogin = throttleMax + 2*time.Second
)

// The ABORT reasons of a failed login.
const (
	deniedURI    = wamp.ErrAuthenticationDenied
	throttledURI = wamp.URI("junction.error.login_throttled")
)

// The client addresses: both loopback, so both reach the node on
// 127.0.0.1 and count as different clients.
var (
	attacker  = net.IPv4(127, 0, 0, 1)
	bystander = net.IPv4(127, 0, 0, 2)
)

// TestLoginFlood is F9's attack (docs/SECURITY.md): 1,000 wrong logins from one
// address, wrong tickets for alice and unknown authids, as fast as the
// node answers. The node must hold back each CHALLENGE from that address
// as documented and refuse the attempts past throttleMax, so that only a
// handful get a CHALLENGE at all; while it does, bob logs in from another
// address at once and alice, the attacked authid, with a delay but never
// refused; after the flood alice logs in from the attacker's address too.
func TestLoginFlood(t *testing.T) {
	requireSoak(t)
	n := startNode(t, nodeSpec{Config: loginConfig(), AllowedWarnings: []string{refusedLine, heldBackLine}})
	url := "ws://" + n.Addr(nodeproc.Transport(0, 0)) + "/auth"
	start := time.Now()

	all := append(loginOneByOne(t, url), loginFlood(t, url)...)
	// From the last one by one on, the address is at the longest delay.
	checkSpacedAtMax(t, all[loginSpacing-1:])
	challenged := countOutcomes(t, all)
	t.Logf("%d wrong logins from %s: %d got a CHALLENGE (then %s), %d were refused with %s",
		len(all), attacker, challenged, deniedURI, len(all)-challenged, throttledURI)

	lr := loginAs(t.Context(), url, attacker, withTicket("alice", aliceTicket))
	if lr.err != nil || lr.abort != "" || lr.took() > heldLogin {
		t.Errorf("alice from %s after the flood: %s; want her joined within %v", attacker, lr, heldLogin)
	}
	t.Logf("alice from %s after the flood: %s", attacker, lr)
	elapsed := time.Since(start)
	n.Stop(t) // the counts still held back are logged at the stop
	checkRefusalLog(t, n.Log(), len(all), elapsed)
}

// The log lines of refused logins (docs/operations.md, "Rate limits"):
// at most refusedBurst per client address in each refusedWindow, then one
// line with the count held back.
const (
	refusedLine   = "join refused"
	heldBackLine  = "join refused: lines held back"
	refusedBurst  = 5
	refusedWindow = 10 * time.Second
)

// checkRefusalLog checks that the node logged the refused logins of the
// attacker's address, refused of them over elapsed, within the rate limit,
// and that the lines and the counts held back add up to every refusal.
func checkRefusalLog(t *testing.T, log string, refused int, elapsed time.Duration) {
	t.Helper()
	lines, held, heldLines := 0, 0, 0
	for line := range strings.Lines(log) {
		var r nodeproc.Record
		if json.Unmarshal([]byte(line), &r) != nil {
			continue
		}
		switch {
		case r.Attr("msg") == refusedLine && strings.HasPrefix(r.Attr("peer"), attacker.String()+":"):
			lines++
		case r.Attr("msg") == heldBackLine && r.Attr("peer") == attacker.String():
			n, _ := r["count"].(float64)
			held += int(n)
			heldLines++
		}
	}
	windows := int(elapsed/refusedWindow) + 1
	t.Logf("%d wrong logins over %v: %d %q lines, %d held back in %d %q lines", refused, elapsed.Round(time.Second), lines, refusedLine, held, heldLines, heldBackLine)
	if lines > refusedBurst*windows || heldLines > windows {
		t.Errorf("%d %q and %d %q lines over %d windows of %v: want at most %d and %d", lines, refusedLine, heldLines, heldBackLine, windows, refusedWindow, refusedBurst*windows, windows)
	}
	if lines+held != refused {
		t.Errorf("%d lines + %d held back, want the %d refusals", lines, held, refused)
	}
}

// loginConfig has a web transport whose path auth offers ticket only,
// for alice and bob.
func loginConfig() obj {
	auth := ticketAuth(map[string]string{"alice": aliceTicket, "bob": bobTicket})
	return routerConfig(webTransport(tcpEndpoint(nil), obj{"auth": obj{"type": "websocket", "auth": auth}}))
}

// loginOneByOne makes loginSpacing wrong logins for alice, each once the
// one before was answered, and checks that their CHALLENGEs come spaced
// by the documented delays: 200 ms after the first failure, doubling up
// to throttleMax.
func loginOneByOne(t *testing.T, url string) []loginResult {
	t.Helper()
	all := make([]loginResult, 0, loginSpacing)
	for i := range loginSpacing {
		lr := loginAs(t.Context(), url, attacker, withTicket("alice", "wrong"))
		if lr.challenge.IsZero() {
			t.Fatalf("wrong login %d, one at a time: %s; want a CHALLENGE (held back at most %v)", i+1, lr, throttleMax)
		}
		all = append(all, lr)
	}
	var gaps []string
	for i := 1; i < len(all); i++ {
		gap, want := all[i].challenge.Sub(all[i-1].challenge), throttleDelay(i)
		gaps = append(gaps, fmt.Sprintf("%v (at least %v)", gap.Round(time.Millisecond), want))
		if gap < want-spacingTolerance {
			t.Errorf("CHALLENGE %d came %v after the one before, %d failures earlier: want at least %v", i+1, gap, i, want)
		}
	}
	t.Logf("%d wrong logins one at a time: their CHALLENGEs came %v apart", loginSpacing, gaps)
	return all
}

// throttleDelay is the documented delay after n failures.
func throttleDelay(n int) time.Duration {
	d := throttleInitial
	for range n - 1 {
		d = min(2*d, throttleMax)
	}
	return d
}

// loginFlood makes the rest of the loginAttempts wrong logins from
// loginWorkers connections at once (half wrong tickets for alice, half
// unknown authids); once the node refuses them, it checks that bob and
// alice log in from the bystander's address meanwhile.
func loginFlood(t *testing.T, url string) []loginResult {
	t.Helper()
	results := make([]loginResult, loginAttempts-loginSpacing)
	throttled, done := make(chan struct{}), make(chan struct{})
	var once sync.Once
	start := time.Now()
	go func() {
		inParallel(len(results), loginWorkers, func(i int) error {
			results[i] = loginAs(t.Context(), url, attacker, wrongLogin(i))
			if results[i].abort == throttledURI {
				once.Do(func() { close(throttled) })
			}
			return nil
		})
		close(done)
	}()
	select {
	case <-throttled:
		bystanderLogins(t, url, done)
	case <-done:
		t.Errorf("no login of the flood refused with %s", throttledURI)
	}
	<-done
	var refused time.Time // the last refusal
	for _, r := range results {
		if r.abort == throttledURI && r.end.After(refused) {
			refused = r.end
		}
	}
	t.Logf("%d wrong logins from %d connections at once took %v; the refusals were all answered within %v",
		len(results), loginWorkers, time.Since(start).Round(time.Millisecond), refused.Sub(start).Round(time.Millisecond))
	return results
}

// wrongLogin is the i-th wrong login of the flood: a wrong ticket for
// alice, or a ticket for an authid that does not exist.
func wrongLogin(i int) client.Config {
	if i%2 == 0 {
		return withTicket("alice", "wrong-"+strconv.Itoa(i))
	}
	return withTicket("nobody-"+strconv.Itoa(i), "wrong")
}

// bystanderPause is the pause between two of bob's logins.
const bystanderPause = 50 * time.Millisecond

// bystanderLogins checks, from the bystander's address while the
// attacker's is throttled, until done is closed, that bob joins at once,
// again and again, and alice, whose authid is under attack, within the
// longest delay.
func bystanderLogins(t *testing.T, url string, done <-chan struct{}) {
	t.Helper()
	aliceLogin := make(chan loginResult, 1)
	go func() { aliceLogin <- loginAs(t.Context(), url, bystander, withTicket("alice", aliceTicket)) }()
	var slowest loginResult
	for n := 1; ; n++ {
		bob := loginAs(t.Context(), url, bystander, withTicket("bob", bobTicket))
		if bob.err != nil || bob.abort != "" || bob.took() > promptLogin {
			t.Errorf("bob's login %d from %s during the flood: %s; want him joined within %v", n, bystander, bob, promptLogin)
		}
		if bob.took() > slowest.took() {
			slowest = bob
		}
		select {
		case <-done:
			t.Logf("during the flood, from %s: bob joined %d times, the slowest: %s", bystander, n, slowest)
			alice := <-aliceLogin
			if alice.err != nil || alice.abort != "" || alice.took() > heldLogin {
				t.Errorf("alice from %s during the flood: %s; want her joined within %v", bystander, alice, heldLogin)
			}
			t.Logf("during the flood, from %s: alice %s", bystander, alice)
			return
		case <-time.After(bystanderPause):
		}
	}
}

// checkSpacedAtMax checks that the CHALLENGEs of results, the attacker's
// address being at the longest delay, came throttleMax apart at least.
func checkSpacedAtMax(t *testing.T, results []loginResult) {
	t.Helper()
	var at []time.Time
	for _, r := range results {
		if !r.challenge.IsZero() {
			at = append(at, r.challenge)
		}
	}
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	var tooClose []time.Duration
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap < throttleMax-spacingTolerance {
			tooClose = append(tooClose, gap)
		}
	}
	if len(tooClose) > 0 {
		t.Errorf("%d CHALLENGEs came less than %v after the one before (%v, ...)", len(tooClose), throttleMax, tooClose[0])
	}
}

// countOutcomes checks that each wrong login got either a CHALLENGE then
// ABORT deniedURI, or ABORT throttledURI without one, and returns how
// many got a CHALLENGE.
func countOutcomes(t *testing.T, all []loginResult) int {
	t.Helper()
	challenged, bad := 0, 0
	for _, r := range all {
		switch {
		case r.err == nil && r.abort == deniedURI && !r.challenge.IsZero():
			challenged++
		case r.err == nil && r.abort == throttledURI && r.challenge.IsZero():
		default:
			if bad++; bad <= 5 {
				t.Errorf("a wrong login: %s; want a CHALLENGE then %s, or %s at once", r, deniedURI, throttledURI)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d wrong logins answered otherwise", bad, len(all))
	}
	return challenged
}

// loginResult is how one login went, seen from the client.
type loginResult struct {
	start     time.Time // when it began to connect
	challenge time.Time // when its CHALLENGE came; zero for none
	end       time.Time // when it joined or was refused
	abort     wamp.URI  // the ABORT reason; "" when it joined
	err       error     // a failure other than an ABORT
}

// took is how long the login took.
func (r loginResult) took() time.Duration { return r.end.Sub(r.start) }

func (r loginResult) String() string {
	s := "joined"
	switch {
	case r.err != nil:
		s = "failed: " + r.err.Error()
	case r.abort != "":
		s = "ABORT " + string(r.abort)
	}
	if !r.challenge.IsZero() {
		s = fmt.Sprintf("CHALLENGE after %v, %s", r.challenge.Sub(r.start).Round(time.Millisecond), s)
	}
	return fmt.Sprintf("%s after %v", s, r.took().Round(time.Millisecond))
}

// loginAs logs in over WebSocket at url from the local address from as
// cfg says (its Auth answers a CHALLENGE), and leaves at once when it
// joined.
func loginAs(ctx context.Context, url string, from net.IP, cfg client.Config) loginResult {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	r := loginResult{start: time.Now()}
	cfg.Auth = timed(cfg.Auth, &r.challenge)
	p, err := websocket.Dial(ctx, url, websocket.DialOptions{NetDial: dialFrom(from)})
	var s *client.Session
	if err == nil {
		s, err = client.Join(ctx, p, cfg)
	}
	r.end = time.Now()
	var re *wamp.RequestError
	switch {
	case errors.As(err, &re):
		r.abort = re.URI
	case err != nil:
		r.err = err
	default:
		s.Close()
	}
	return r
}

// dialFrom dials from the local address ip.
func dialFrom(ip net.IP) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}
	return d.DialContext
}

// timedAuth is an Authenticator that notes when the CHALLENGE came.
type timedAuth struct {
	client.Authenticator
	at *time.Time // set by Respond, on the joining goroutine
}

func (a timedAuth) Respond(ch *wamp.Challenge) (string, wamp.Dict, error) {
	*a.at = time.Now()
	return a.Authenticator.Respond(ch)
}

// timed wraps each of auths so that it notes the CHALLENGE's arrival in
// at.
func timed(auths []client.Authenticator, at *time.Time) []client.Authenticator {
	out := make([]client.Authenticator, len(auths))
	for i, a := range auths {
		out[i] = timedAuth{Authenticator: a, at: at}
	}
	return out
}
