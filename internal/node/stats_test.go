package node

import (
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// statsNodeDoc is a node whose realm1 publishes session statistics on
// join and every 1000 rated messages, with a RawSocket listener.
const statsNodeDoc = `{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}],
		"stats": {"rated_message_size": 256, "trigger_after_rated_messages": 1000, "trigger_on_join": true}}],
	"transports": [{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}]}]}`

// TestRealmStats checks a realm's "stats" end to end over RawSocket: a
// session's first event at its join and its last when it leaves, with the
// bytes the transport counted.
func TestRealmStats(t *testing.T) {
	n, _ := startLogged(t, statsNodeDoc)
	addr := address(t, n, web0)
	mon := mustRaw(t, "tcp", addr, client.Config{Realm: "realm1"})
	events := make(chan *client.Event, 4)
	if _, err := mon.Subscribe(testCtx(t), "wamp.session.on_stats", func(e *client.Event) { events <- e }, nil); err != nil {
		t.Fatal(err)
	}
	s := mustRaw(t, "tcp", addr, client.Config{Realm: "realm1"})
	first := statsEvent(t, events, s)
	if first["first"] != true || first["last"] != false || first["serializer"] != "json" {
		t.Errorf("first event %v", first)
	}
	if m, _ := wamp.AsInt(first["messages"]); m != 2 { // HELLO, WELCOME
		t.Errorf("first event: %v messages, want 2", first["messages"])
	}
	if b, _ := wamp.AsInt(first["bytes"]); b < 20 {
		t.Errorf("first event: %v bytes, want those of HELLO and WELCOME", first["bytes"])
	}
	s.Close()
	last := statsEvent(t, events, s)
	if last["first"] != false || last["last"] != true || last["cycle"] != int64(2) {
		t.Errorf("last event %v", last)
	}
}

// statsEvent receives the next on_stats event and checks it is about s.
func statsEvent(t *testing.T, events chan *client.Event, s *client.Session) map[string]any {
	t.Helper()
	select {
	case e := <-events:
		info, _ := wamp.AsDict(e.Args[0])
		if id, _ := wamp.AsInt(info["session"]); id != int64(s.ID()) || info["realm"] != "realm1" {
			t.Fatalf("on_stats about %v, want session %d", info, s.ID())
		}
		return dict(e.Args[1])
	case <-testCtx(t).Done():
		t.Fatal("no wamp.session.on_stats")
		return nil
	}
}
