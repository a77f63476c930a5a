//go:build soak

package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/junction-wamp/junction/wamp"
)

// The idle scenario: idleConns connections (half WebSocket, upgraded on a
// path that offers only ticket, half RawSocket, past the 4-octet
// handshake) that never send HELLO, opened idleOpeners at a time; the
// flood is repeated idleFloods times.
const (
	idleConns       = 10_000
	idleOpeners     = 16
	idleJoinTimeout = 5 * time.Second // longer than opening them all takes
	// idleCloseSlack is how long after idleJoinTimeout the node may take
	// to close an idle connection: 10,000 timers fire within moments of
	// each other, each sending ABORT and closing, on a shared machine.
	idleCloseSlack = 5 * time.Second
	// idleConnBytes bounds the memory an idle connection may cost the
	// node: each flood's peak resident memory is at most the baseline
	// plus idleConns times this. Measured: 8 to 10 KiB on a quiet
	// machine, up to 15 KiB on a busy one (the collector falls behind).
	idleConnBytes = 24 << 10
	// idleFloods is how many floods run, one after the other. The second
	// takes some 20 MiB more than the first (Go's runtime keeps the
	// first one's freed memory, and collects it as the second one grows);
	// from then on the memory is reused: the last flood's peak may not
	// exceed the highest before it by more than idleRSSGrowth, which a
	// leak of 2.4 KiB per connection would.
	idleFloods    = 3
	idleRSSGrowth = 24 * MiB
)

// joinTimeoutURI is the ABORT reason of a client that did not join in
// time.
const joinTimeoutURI wamp.URI = "junction.error.join_timeout"

// TestIdleConnectionsTimeOut is F3's held-connections attack (docs/SECURITY.md):
// 10,000 unauthenticated connections that never send HELLO, idleFloods
// times. The node must close each (ABORT junction.error.join_timeout,
// then close) within idleCloseSlack after its join_timeout, let a normal
// client join while it holds them and after, give back every descriptor,
// and keep its memory within idleConnBytes per connection, reusing it
// from one flood to the next.
func TestIdleConnectionsTimeOut(t *testing.T) {
	requireSoak(t)
	needNoFile(t, idleConns+1024)
	n := startNode(t, nodeSpec{Config: idleConfig(idleJoinTimeout), NoFile: idleConns + 2048})
	raw, url := n.Addr(rawPath), "ws://"+n.Addr(webPath)+"/auth"
	normalJoins(t, "before the floods", raw, url)
	base := readUsage(t, n.PID())
	t.Logf("baseline: %s", base)

	limit := base.RSS + idleConns*idleConnBytes
	var before int64 // the highest peak of the floods before
	for i := 1; i <= idleFloods; i++ {
		peak := idleFlood(t, i, n.PID(), raw, url, base)
		if peak.RSS > limit {
			t.Errorf("flood %d: peak resident memory %.1f MiB, over the bound %.1f MiB (the baseline + %d x %d KiB)",
				i, float64(peak.RSS)/MiB, float64(limit)/MiB, idleConns, idleConnBytes>>10)
		}
		if i == idleFloods && peak.RSS > before+idleRSSGrowth {
			t.Errorf("flood %d: peak resident memory %.1f MiB, more than the floods before (%.1f MiB) + %d MiB: the node keeps memory of closed connections",
				i, float64(peak.RSS)/MiB, float64(before)/MiB, idleRSSGrowth/MiB)
		}
		before = max(before, peak.RSS)
	}
}

// idleFlood opens idleConns idle connections and checks that the node
// closes them all in time, serves a normal client meanwhile and after,
// and gives its descriptors back (to within fdSlack of base). It
// returns the node's peak usage.
func idleFlood(t *testing.T, i, pid int, raw, url string, base usage) usage {
	t.Helper()
	smp := sample(t, pid)
	results := make(chan idleResult, idleConns)
	start := time.Now()
	openIdle(t, raw, url, results)
	t.Logf("flood %d: %d idle connections opened in %v", i, idleConns, time.Since(start).Round(time.Millisecond))
	held := readUsage(t, pid)
	normalJoins(t, fmt.Sprintf("flood %d, with %d descriptors open", i, held.FDs), raw, url)
	checkIdleClosed(t, i, collect(results, idleConns))
	peak := smp.Final(t)
	t.Logf("flood %d: peak %s", i, peak)
	settled(t, pid, base)
	normalJoins(t, fmt.Sprintf("after flood %d", i), raw, url)
	return peak
}

// idleConfig has a RawSocket transport and a web transport whose path
// auth is WebSocket, both offering only ticket (for alice) and closing
// connections that do not join within joinTimeout; each listener may
// hold every idle connection.
func idleConfig(joinTimeout time.Duration) obj {
	auth := ticketAuth(map[string]string{"alice": aliceTicket})
	opts := obj{"join_timeout": joinTimeout.Milliseconds()}
	capped := obj{"max_connections": idleConns + 100}
	rawT := obj{"type": "rawsocket", "endpoint": tcpEndpoint(capped), "auth": auth, "options": opts}
	webT := webTransport(tcpEndpoint(capped), obj{"auth": obj{"type": "websocket", "auth": auth, "options": opts}})
	return routerConfig(rawT, webT)
}

// normalJoins checks that alice joins with her ticket over RawSocket at
// raw and over WebSocket at url, and leaves.
func normalJoins(t *testing.T, when, raw, url string) {
	t.Helper()
	start := time.Now()
	s, err := joinRawAs(t, raw, withTicket("alice", aliceTicket))
	if err != nil {
		t.Fatalf("%s: a RawSocket client could not join: %v", when, err)
	}
	s.Close()
	s, err = joinWSAs(t, url, withTicket("alice", aliceTicket))
	if err != nil {
		t.Fatalf("%s: a WebSocket client could not join: %v", when, err)
	}
	s.Close()
	t.Logf("%s: a RawSocket and a WebSocket client joined in %v", when, time.Since(start).Round(time.Millisecond))
}

// idleResult is what became of one idle connection.
type idleResult struct {
	transport string        // "rawsocket" or "websocket"
	closed    time.Duration // from its handshake to the node's close
	abort     wamp.URI      // the reason of the ABORT it got, "" for none
	err       error         // not closed by the node in time, or another failure
}

// openIdle opens idleConns idle connections, alternately RawSocket at raw
// and WebSocket at url, idleOpeners at a time; each is then watched
// until the node closes it, and its result sent on results.
func openIdle(t *testing.T, raw, url string, results chan<- idleResult) {
	t.Helper()
	err := inParallel(idleConns, idleOpeners, func(i int) error {
		if err := openOneIdle(t.Context(), i%2 == 0, raw, url, results); err != nil {
			return fmt.Errorf("idle connection %d: %w", i, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// openOneIdle opens one idle connection and starts watching it.
func openOneIdle(ctx context.Context, rawsocket bool, raw, url string, results chan<- idleResult) error {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	if rawsocket {
		conn, err := openIdleRaw(ctx, raw)
		if err != nil {
			return err
		}
		open := time.Now()
		go func() { results <- watchIdle("rawsocket", conn, open, readRawFrame(conn)) }()
		return nil
	}
	conn, r, err := openIdleWS(ctx, url)
	if err != nil {
		return err
	}
	open := time.Now()
	go func() { results <- watchIdle("websocket", conn, open, readWSFrame(conn, r)) }()
	return nil
}

// openIdleRaw connects to addr and completes the RawSocket handshake for
// JSON, then sends nothing.
func openIdleRaw(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	// 0x7F, then: 16 MiB messages at most (0xF), JSON (1); two zero octets.
	reply := make([]byte, 4)
	if _, err := conn.Write([]byte{0x7F, 0xF1, 0, 0}); err == nil {
		_, err = io.ReadFull(conn, reply)
	}
	if err == nil && (reply[0] != 0x7F || reply[1]&0x0F != 1) {
		err = fmt.Errorf("RawSocket handshake refused: % x", reply)
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("RawSocket handshake: %w", err)
	}
	conn.SetDeadline(time.Time{})
	return conn, nil
}

// openIdleWS upgrades a connection to url for WAMP over JSON, then sends
// nothing. The reader holds what the node sent after its handshake.
func openIdleWS(ctx context.Context, url string) (net.Conn, io.Reader, error) {
	conn, br, _, err := ws.Dialer{Protocols: []string{"wamp.2.json"}}.Dial(ctx, url)
	if err != nil {
		return nil, nil, fmt.Errorf("WebSocket handshake: %w", err)
	}
	if br == nil {
		return conn, conn, nil
	}
	return conn, io.MultiReader(br, conn), nil
}

// frameReader reads the next WAMP message of a connection, or fails; it
// answers what the protocol asks on the way (a WebSocket close).
type frameReader func() ([]byte, error)

// watchIdle reads the idle connection opened at open until the node
// closes it, and says how and when it did. The node has until
// idleJoinTimeout+idleCloseSlack.
func watchIdle(transport string, conn net.Conn, open time.Time, next frameReader) idleResult {
	defer conn.Close()
	res := idleResult{transport: transport}
	conn.SetReadDeadline(open.Add(idleJoinTimeout + idleCloseSlack))
	for {
		msg, err := next()
		if err != nil {
			res.closed = time.Since(open)
			if !closedByPeer(err) {
				res.err = fmt.Errorf("not closed by the node: %w", err)
			}
			return res
		}
		if res.abort != "" {
			res.err = fmt.Errorf("a message after ABORT: %s", msg)
			return res
		}
		if res.abort = abortReason(msg); res.abort == "" {
			res.err = fmt.Errorf("a message other than ABORT: %s", msg)
			return res
		}
	}
}

// closedByPeer says whether a read failed because the other end closed.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

// abortReason is the reason of a JSON ABORT ([3, {...}, "reason"]), ""
// when msg is no ABORT.
func abortReason(msg []byte) wamp.URI {
	var m []any
	if json.Unmarshal(msg, &m) != nil || len(m) != 3 || m[0] != float64(3) {
		return ""
	}
	reason, _ := m[2].(string)
	return wamp.URI(reason)
}

// readRawFrame reads RawSocket frames of conn: the payload of the next
// WAMP message (pings and pongs are skipped).
func readRawFrame(conn net.Conn) frameReader {
	return func() ([]byte, error) {
		for {
			var hdr [4]byte
			if _, err := io.ReadFull(conn, hdr[:]); err != nil {
				return nil, err
			}
			payload := make([]byte, int(hdr[1])<<16|int(hdr[2])<<8|int(hdr[3]))
			if _, err := io.ReadFull(conn, payload); err != nil {
				return nil, err
			}
			if hdr[0]&0x07 == 0 {
				return payload, nil
			}
		}
	}
}

// readWSFrame reads WebSocket frames from r (conn's): the payload of the
// next text message. A close frame is answered with a close frame, as a
// client must; the node then closes the connection.
func readWSFrame(conn net.Conn, r io.Reader) frameReader {
	return func() ([]byte, error) {
		for {
			h, err := ws.ReadHeader(r)
			if err != nil {
				return nil, err
			}
			payload := make([]byte, h.Length)
			if _, err := io.ReadFull(r, payload); err != nil {
				return nil, err
			}
			switch h.OpCode {
			case ws.OpText:
				return payload, nil
			case ws.OpClose:
				if err := ws.WriteFrame(conn, ws.MaskFrameInPlace(ws.NewCloseFrame(payload))); err != nil {
					return nil, err
				}
			}
		}
	}
}

// collect receives n results.
func collect(results <-chan idleResult, n int) []idleResult {
	all := make([]idleResult, 0, n)
	for range n {
		all = append(all, <-results)
	}
	return all
}

// checkIdleClosed fails the test unless every idle connection got ABORT
// join_timeout and was then closed by the node in time; it reports how
// long the closes took.
func checkIdleClosed(t *testing.T, flood int, all []idleResult) {
	t.Helper()
	count := map[string]int{}
	var delays []time.Duration
	for _, r := range all {
		switch {
		case r.err != nil:
			count["failed"]++
			if count["failed"] <= 5 {
				t.Errorf("%s idle connection: %v (after %v)", r.transport, r.err, r.closed.Round(time.Millisecond))
			}
		case r.abort != joinTimeoutURI:
			count["failed"]++
			if count["failed"] <= 5 {
				t.Errorf("%s idle connection: closed after %v with ABORT %q, want %s", r.transport, r.closed.Round(time.Millisecond), r.abort, joinTimeoutURI)
			}
		default:
			count[r.transport]++
			delays = append(delays, r.closed)
		}
	}
	if count["failed"] > 0 {
		t.Fatalf("%d of %d idle connections not closed with ABORT %s within %v of their handshake",
			count["failed"], len(all), joinTimeoutURI, idleJoinTimeout+idleCloseSlack)
	}
	slices.Sort(delays)
	t.Logf("flood %d: closed with ABORT %s: %d RawSocket, %d WebSocket; after their handshake: min %v, median %v, p99 %v, max %v (join_timeout %v)",
		flood, joinTimeoutURI, count["rawsocket"], count["websocket"], delays[0].Round(time.Millisecond),
		delays[len(delays)/2].Round(time.Millisecond), delays[len(delays)*99/100].Round(time.Millisecond),
		delays[len(delays)-1].Round(time.Millisecond), idleJoinTimeout)
}
