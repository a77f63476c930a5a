//go:build soak

package soak

import (
	"testing"

	"github.com/junction-wamp/junction/test/internal/nodeproc"
)

// The burst scenarios run the node with burstNoFile descriptors and open
// burstConns connections to each of its listeners: more than it can hold.
const (
	burstNoFile = 256
	burstConns  = 300
)

// Warnings a burst makes the node log.
const (
	capRefusal       = "connection refused: the listener is at its connection cap"
	rawAcceptFailed  = "rawsocket: accept failed, retrying"
	webAcceptFailed  = "web: accept failed"
	rawAcceptedAgain = "rawsocket: accepting again"
)

var (
	rawPath = nodeproc.Transport(0, 0)
	webPath = nodeproc.Transport(0, 1)
)

// TestBurstWithinCaps: a burst past the descriptor limit against a node
// with the default connection caps (each of its two listeners gets
// (256 - 64) / 2 = 96). The connections past a cap are closed at once, so
// the node never runs out of descriptors: while the RawSocket listener is
// flooded, the web listener serves; after both bursts end, both serve.
func TestBurstWithinCaps(t *testing.T) {
	requireSoak(t)
	n := startNode(t, nodeSpec{
		Config:          routerConfig(rawSocketTransport(tcpEndpoint(nil)), webTransport(tcpEndpoint(nil), nil)),
		NoFile:          burstNoFile,
		AllowedWarnings: []string{capRefusal},
	})
	n.WaitLog(t, "the default caps", 2, func(r nodeproc.Record) bool {
		return r.Attr("msg") == "listening" && r["max_connections"] == float64((burstNoFile-64)/2)
	})
	raw, web := n.Addr(rawPath), n.Addr(webPath)

	rawBurst := openConns(t, raw, burstConns)
	n.WaitLog(t, "RawSocket refusals", 1, nodeproc.MsgIs(capRefusal, "transport", rawPath))
	if err := servesHTTP(t, "http://"+web+"/json")(); err != nil {
		t.Fatalf("web listener during the RawSocket burst: %v", err)
	}
	webBurst := openConns(t, web, burstConns)
	n.WaitLog(t, "web refusals", 1, nodeproc.MsgIs(capRefusal, "transport", webPath))

	rawBurst.Close()
	webBurst.Close()
	recovered(t, "RawSocket", servesRaw(t, raw))
	recovered(t, "WebSocket", servesWS(t, "ws://"+web+"/ws"))
	recovered(t, "HTTP", servesHTTP(t, "http://"+web+"/json"))
}

// TestBurstPastDescriptorLimit is F1 (docs/SECURITY.md): with caps above what the
// descriptors allow, a burst makes accepts fail with EMFILE on both
// listeners. Each must retry, and serve again once the burst's connections
// are gone (the RawSocket listener used to stop for good).
func TestBurstPastDescriptorLimit(t *testing.T) {
	requireSoak(t)
	uncapped := obj{"max_connections": 100000}
	n := startNode(t, nodeSpec{
		Config:          routerConfig(rawSocketTransport(tcpEndpoint(uncapped)), webTransport(tcpEndpoint(uncapped), nil)),
		NoFile:          burstNoFile,
		AllowedWarnings: []string{rawAcceptFailed, webAcceptFailed},
	})
	raw, web := n.Addr(rawPath), n.Addr(webPath)

	rawBurst := openConns(t, raw, burstConns)
	n.WaitLog(t, "RawSocket accept failures", 1, nodeproc.MsgIs(rawAcceptFailed, "transport", rawPath))
	webBurst := openConns(t, web, burstConns)
	n.WaitLog(t, "web accept failures", 1, nodeproc.MsgIs(webAcceptFailed, "transport", webPath))

	rawBurst.Close()
	webBurst.Close()
	n.WaitLog(t, "RawSocket accepting again", 1, nodeproc.MsgIs(rawAcceptedAgain, "transport", rawPath))
	recovered(t, "RawSocket", servesRaw(t, raw))
	recovered(t, "WebSocket", servesWS(t, "ws://"+web+"/ws"))
	recovered(t, "HTTP", servesHTTP(t, "http://"+web+"/json"))
}
