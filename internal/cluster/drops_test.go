package cluster

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// TestEventsDropped: an event that does not reach another member's
// subscribers, or this node's, is counted by reason and logged,
// rate-limited: one for an interested member no longer live, one from a
// member held lost, one for a realm not served here, one that cannot be
// decoded.
func TestEventsDropped(t *testing.T) {
	var log logtest.Log
	ps, kv := onePubSub(t, log.Logger(slog.LevelInfo))
	n := ps.node
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	gone := Member{Name: "drop-2", Epoch: 7}
	in := interest{gone, "realm1", router.Subscription{Topic: "com.t", Match: uriindex.Exact}}
	if _, err := kv.Put(ctx, key(in), appendInterest(nil, in)); err != nil {
		t.Fatal(err)
	}
	waitMirror(t, ps, "com.t", 1) // its interest, it never heard
	ps.publish("realm1", &router.Publication{Topic: "com.t", ID: 1, Payload: wamp.Payload{Args: wamp.List{1}}})
	want := EventDrops{MemberLost: 1}
	if got := n.Stats().EventsDropped; got != want {
		t.Fatalf("for a member not live: %+v, want %+v", got, want)
	}

	body, err := appendEvent(nil, remoteEvent{"realm1", &router.Publication{Topic: "com.t", ID: 2}})
	if err != nil {
		t.Fatal(err)
	}
	n.mu.Lock()
	n.heardLocked(gone, time.Now())
	n.lostLocked(gone)
	n.mu.Unlock()
	env := appendEnvelope(nil, envelope{kind: kindEvent, from: gone, toEpoch: n.Self().Epoch, seq: 1, body: body})
	n.onEnvelope(&nats.Msg{Data: env})
	want.MemberLost++
	if got := n.Stats().EventsDropped; got != want {
		t.Fatalf("from a member held lost: %+v, want %+v", got, want)
	}

	ps.onEvent(gone, body) // realm1 is not linked on this node
	ps.onEvent(gone, []byte{0xff})
	want.NoRealm, want.Malformed = 1, 1
	if got := n.Stats().EventsDropped; got != want {
		t.Fatalf("for no realm, malformed: %+v, want %+v", got, want)
	}
	lines := log.Lines(t, "cluster: event dropped")
	if len(lines) != 1 || lines[0]["reason"] != "member_lost" || lines[0]["member"] != gone.String() || lines[0]["level"] != "WARN" {
		t.Errorf("logged %v, want the first drop only (rate-limited)", lines)
	}
}
