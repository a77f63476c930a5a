//go:build soak

package soak

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/wamp"
)

// The memory scenario: floodSessions sessions each publish a retained
// event of retainedSize and add two testaments of testamentSize, and
// floodHeavy of them floodHeavyEvents retained events each, all on
// distinct topics: past every default limit on retained events and
// testaments, per session and per realm. floodWaves waves, each of new
// sessions once the last wave's have left.
const (
	floodSessions    = 1200 // past the realm's testament bytes: 64 MiB / 60 KiB is 1092
	floodHeavy       = 8
	floodHeavyEvents = 20 // 5 MiB, past the 4 MiB of one session
	floodWorkers     = 32 // sessions joining and publishing at once
	floodWaves       = 2
	retainedSize     = 256 << 10
	testamentSize    = 60 << 10
)

// The default limits (docs/configuration.md, "Realm limits"), in bytes
// estimated from the decoded payload, which for one long string is its
// length plus some tens of bytes.
const (
	retainedBytesPerRealm    = 64 << 20
	retainedBytesPerSession  = 4 << 20
	testamentBytesPerRealm   = 64 << 20
	testamentBytesPerSession = 64 << 10
)

// limitExceededURI is the ERROR of a request past a limit.
const limitExceededURI = wamp.ErrLimitExceeded

// limitWarning is the node's (rate-limited) warning of a refusal.
const limitWarning = "limit exceeded"

// TestRetainedAndTestamentFlood is F5's attack (docs/SECURITY.md): sessions that
// make the router hold retained events and testaments without end. Each
// publication and testament past a limit must get ERROR
// junction.error.limit_exceeded, the realm's retained events stay within
// their limit after their publishers left, and the node's resident
// memory stays under memoryBound, during each wave and after it.
func TestRetainedAndTestamentFlood(t *testing.T) {
	requireSoak(t)
	n := startNode(t, nodeSpec{
		Config:          routerConfig(rawSocketTransport(tcpEndpoint(nil))),
		AllowedWarnings: []string{limitWarning},
	})
	raw := n.Addr(rawPath)
	if _, err := joinRaw(t, raw); err != nil {
		t.Fatal(err)
	}
	base := readUsage(t, n.PID())
	bound := memoryBound(base.RSS)
	t.Logf("baseline: %s; bound %.1f MiB", base, float64(bound)/MiB)

	for wave := 1; wave <= floodWaves; wave++ {
		smp := sample(t, n.PID())
		sessions, tally := floodWave(t, raw, wave)
		during, err := smp.Peak()
		if err != nil {
			t.Fatal(err)
		}
		closeAll(sessions)
		after := settled(t, n.PID(), base)
		peak := smp.Final(t)
		t.Logf("wave %d: %s\n\tpeak while the sessions held it: %s; peak until they had left: %s; after: %s", wave, tally, during, peak, after)
		tally.check(t, wave)
		if peak.RSS > bound {
			t.Errorf("wave %d: peak resident memory %.1f MiB, over the bound %.1f MiB", wave, float64(peak.RSS)/MiB, float64(bound)/MiB)
		}
	}
}

// memoryBound is the most resident memory the node may take, the
// baseline given. Go's collector lets the heap grow to twice what is live
// before it collects; what is live is at most what the limits let the
// realm hold (its retained events and testaments), each session's own
// state (floodSessionBytes) and the publications under way (floodWorkers
// at a time, each read then decoded):
//
//	base + 2 x (64 MiB + 64 MiB + 1209 x 32 KiB + 32 x 2 x 256 KiB)
func memoryBound(base int64) int64 {
	held := int64(retainedBytesPerRealm + testamentBytesPerRealm)
	sessions := int64(floodSessions+floodHeavy+1) * floodSessionBytes
	underWay := int64(floodWorkers * 2 * retainedSize)
	return base + 2*(held+sessions+underWay)
}

// floodSessionBytes bounds what a joined session costs the node besides
// what it makes the realm hold: its connection, goroutines and queues
// (some 20 KiB measured, with the collector's headroom).
const floodSessionBytes = 32 << 10

// floodTally counts the answers of one wave. Safe for concurrent use.
type floodTally struct {
	mu sync.Mutex
	// by what ("retained", "heavy retained", "testament") and answer
	// ("ok", "per session", "per realm", or an unexpected error)
	n map[string]map[string]int
}

func (ft *floodTally) add(what string, err error) {
	answer := "ok"
	var re *wamp.RequestError
	switch {
	case errors.As(err, &re) && re.URI == limitExceededURI && strings.Contains(fmt.Sprint(re.Args...), "per session"):
		answer = "per session"
	case errors.As(err, &re) && re.URI == limitExceededURI && strings.Contains(fmt.Sprint(re.Args...), "per realm"):
		answer = "per realm"
	case err != nil:
		answer = err.Error()
	}
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if ft.n == nil {
		ft.n = map[string]map[string]int{}
	}
	if ft.n[what] == nil {
		ft.n[what] = map[string]int{}
	}
	ft.n[what][answer]++
}

func (ft *floodTally) String() string {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	var b strings.Builder
	for _, what := range []string{"heavy retained", "retained", "testament"} {
		fmt.Fprintf(&b, "%s: %d accepted, refused %d per session and %d per realm; ",
			what, ft.n[what]["ok"], ft.n[what]["per session"], ft.n[what]["per realm"])
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// check fails the test unless every answer was an acceptance or a
// refusal by a limit, and the limits held: in the first wave the heavy
// publishers are refused past their own limit and the realm's retained
// events fill up to its limit, which keeps every later wave's out (they
// stay when their publishers leave); in every wave the realm's
// testaments fill up to its limit (the last wave's went with their
// sessions), no session keeps two, and some are refused per realm.
func (ft *floodTally) check(t *testing.T, wave int) {
	t.Helper()
	ft.mu.Lock()
	defer ft.mu.Unlock()
	for what, answers := range ft.n {
		for answer, n := range answers {
			if answer != "ok" && answer != "per session" && answer != "per realm" {
				t.Errorf("wave %d: %d %s requests failed: %s", wave, n, what, answer)
			}
		}
	}
	heavy, light, testaments := ft.n["heavy retained"], ft.n["retained"], ft.n["testament"]
	retained := heavy["ok"] + light["ok"]
	if wave == 1 && heavy["per session"] < floodHeavy {
		t.Errorf("wave 1: %d heavy publishers' retained events refused per session, want one for each of the %d at least", heavy["per session"], floodHeavy)
	}
	if wave == 1 && retained < filled(retainedBytesPerRealm, retainedSize) || wave > 1 && retained > 0 {
		t.Errorf("wave %d: %d retained events accepted; want the realm filled up to its limit in the first wave, and none later", wave, retained)
	}
	if retained*retainedSize > retainedBytesPerRealm || light["per realm"] == 0 {
		t.Errorf("wave %d: %d retained events accepted, %d refused per realm: want them within the realm's %d MiB", wave, retained, light["per realm"], retainedBytesPerRealm>>20)
	}
	if ok := testaments["ok"]; ok < filled(testamentBytesPerRealm, testamentSize) || ok*testamentSize > testamentBytesPerRealm || ok > floodSessions {
		t.Errorf("wave %d: %d testaments accepted: want the realm filled up to its %d MiB, and at most one for each session", wave, ok, testamentBytesPerRealm>>20)
	}
	if testaments["per realm"] == 0 {
		t.Errorf("wave %d: no testament refused per realm", wave)
	}
}

// filled is how many payloads of size fill limit, at least: each is
// estimated at its length plus less than 4 KiB.
func filled(limit, size int) int { return limit / (size + 4<<10) }

// floodWave joins the heavy publishers, then floodSessions sessions, each
// sending what it must, floodWorkers at a time, and returns the sessions,
// still joined, and the answers they got.
func floodWave(t *testing.T, raw string, wave int) ([]*client.Session, *floodTally) {
	t.Helper()
	tally := &floodTally{}
	retained, testament := strings.Repeat("r", retainedSize), strings.Repeat("t", testamentSize)
	heavy := func(s *client.Session, i int) {
		for j := range floodHeavyEvents {
			tally.add("heavy retained", publishRetained(t.Context(), s, fmt.Sprintf("flood.w%d.heavy%d.%d", wave, i, j), retained))
		}
	}
	light := func(s *client.Session, i int) {
		tally.add("retained", publishRetained(t.Context(), s, fmt.Sprintf("flood.w%d.s%d", wave, i), retained))
		for range 2 {
			tally.add("testament", addTestament(t.Context(), s, fmt.Sprintf("flood.testament.%d", i), testament))
		}
	}
	start := time.Now()
	sessions := append(joinEach(t, raw, floodHeavy, heavy), joinEach(t, raw, floodSessions, light)...)
	t.Logf("wave %d: %d sessions joined and flooded in %v", wave, len(sessions), time.Since(start).Round(time.Millisecond))
	return sessions, tally
}

// joinEach joins n sessions over RawSocket at raw, floodWorkers at a
// time, and runs do with each and its index; it returns them, still
// joined.
func joinEach(t *testing.T, raw string, n int, do func(*client.Session, int)) []*client.Session {
	t.Helper()
	return joinEachBy(t, raw, n, floodWorkers, do)
}

// joinEachBy is joinEach with workers sessions at a time.
func joinEachBy(t *testing.T, raw string, n, workers int, do func(*client.Session, int)) []*client.Session {
	t.Helper()
	sessions := make([]*client.Session, n)
	err := inParallel(n, workers, func(i int) error {
		s, err := joinRaw(t, raw)
		if err != nil {
			return err
		}
		sessions[i] = s
		do(s, i)
		return nil
	})
	if err != nil {
		t.Fatalf("a session could not join: %v", err)
	}
	return sessions
}

// publishRetained publishes payload on topic, retained and acknowledged.
func publishRetained(ctx context.Context, s *client.Session, topic string, payload any) error {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	_, err := s.Publish(ctx, wamp.URI(topic), wamp.List{payload}, nil, wamp.Dict{"acknowledge": true, "retain": true})
	return err
}

// addTestament asks the router to publish payload on topic when s
// leaves.
func addTestament(ctx context.Context, s *client.Session, topic, payload string) error {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	_, err := s.Call(ctx, "wamp.session.add_testament", wamp.List{topic, wamp.List{payload}, wamp.Dict{}}, nil)
	return err
}

// closeAll closes the sessions; the node publishes their testaments.
func closeAll(sessions []*client.Session) {
	for _, s := range sessions {
		s.Close()
	}
}

// The dense scenario: denseEvents sessions each publish one retained
// event whose argument is a list of denseValues empty objects (a byte
// each on the wire in MessagePack, some 64 bytes each once decoded: an
// interface and an empty map), denseWorkers at a time; then denseReaders
// sessions of another serializer (JSON) get them all, retained, at once.
const (
	denseEvents  = 64
	denseValues  = 60_000
	denseWorkers = 4
	denseReaders = 4
	// denseWire is one event's payload as received: a byte per value
	// and the list's and arguments' heads.
	denseWire = denseValues + 8
	// denseDecoded is what one such payload costs decoded: 16 bytes for
	// the element and 48 for the map header (docs/router.md).
	denseDecoded = denseValues * (16 + 48)
)

// TestDenseRetainedFlood is F5's attack with payloads dense in small
// values (docs/SECURITY.md). The router keeps a retained payload as it
// was received and counts its bytes, so the realm takes them all; a
// subscriber of another serializer needs each decoded, and that decoding
// must go with its delivery, not stay with the retained event (64 events
// decoded would hold 64 times what was counted). The node's resident
// memory stays bounded by the events' bytes, denseReaders deliveries
// decoded at once (each decoded, then encoded) and the sessions, with the
// collector's headroom:
//
//	base + 2 x (64 x 60 KB + 4 x 2 x 60,000 x 64 B + 68 x 32 KiB)
func TestDenseRetainedFlood(t *testing.T) {
	requireSoak(t)
	n := startNode(t, nodeSpec{Config: routerConfig(rawSocketTransport(tcpEndpoint(nil)))})
	raw := n.Addr(rawPath)
	base := readUsage(t, n.PID())
	bound := base.RSS + 2*(denseEvents*denseWire+denseReaders*2*denseDecoded+(denseEvents+denseReaders)*floodSessionBytes)
	payload := make(wamp.List, denseValues)
	for i := range payload {
		payload[i] = wamp.Dict{}
	}
	smp := sample(t, n.PID())
	var failures sync.Map
	sessions := joinEachBy(t, raw, denseEvents, denseWorkers, func(s *client.Session, i int) {
		if err := publishRetained(t.Context(), s, fmt.Sprintf("dense.%d", i), payload); err != nil {
			failures.Store(err.Error(), true)
		}
	})
	closeAll(sessions)
	failures.Range(func(k, _ any) bool {
		t.Errorf("a publication failed: %v", k)
		return true
	})
	start := time.Now()
	if err := inParallel(denseReaders, denseReaders, func(int) error { return readRetained(t, raw) }); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d JSON subscribers got the %d retained events in %v", denseReaders, denseEvents, time.Since(start).Round(time.Millisecond))
	settled(t, n.PID(), base)
	peak := smp.Final(t)
	t.Logf("peak %s; bound %.1f MiB", peak, float64(bound)/MiB)
	if peak.RSS > bound {
		t.Errorf("peak resident memory %.1f MiB, over the bound %.1f MiB: the retained events kept what their deliveries decoded?", float64(peak.RSS)/MiB, float64(bound)/MiB)
	}
}

// readRetained joins over RawSocket with JSON, subscribes to the dense
// topics with get_retained, and waits for all denseEvents events, each
// with its denseValues values.
func readRetained(t *testing.T, addr string) error {
	p, err := rawsocket.Dial(stepCtx(t), "tcp", addr, rawsocket.DialOptions{Serializer: "json", MaxMessageSize: 1 << 20})
	if err != nil {
		return err
	}
	s, err := join(t, p, anonymous)
	if err != nil {
		return err
	}
	defer s.Close()
	got := make(chan int, denseEvents)
	ctx := stepCtx(t)
	_, err = s.Subscribe(ctx, "dense.", func(ev *client.Event) {
		l, _ := ev.Args[0].(wamp.List)
		got <- len(l)
	}, wamp.Dict{"match": "prefix", "get_retained": true})
	if err != nil {
		return err
	}
	for range denseEvents {
		select {
		case n := <-got:
			if n != denseValues {
				return fmt.Errorf("a retained event with %d values, want %d", n, denseValues)
			}
		case <-ctx.Done():
			return fmt.Errorf("retained events: %w", ctx.Err())
		}
	}
	return nil
}
