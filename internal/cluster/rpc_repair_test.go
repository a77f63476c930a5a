package cluster_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/wamp"
)

// removeAll deletes every record of node's reg table, as the other nodes
// do with a node's callees when they stop hearing it, and returns their
// keys.
func removeAll(t *testing.T, node *cluster.Node) (jetstream.KeyValue, []string) {
	t.Helper()
	kv, err := node.KV(ctxFor(t), "reg")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := kv.Keys(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if err := kv.Delete(ctxFor(t), k); err != nil {
			t.Fatalf("delete %s: %v", k, err)
		}
	}
	return kv, keys
}

// waitRecords waits until the table holds every record of keys again.
func waitRecords(t *testing.T, kv jetstream.KeyValue, keys []string) {
	t.Helper()
	deadline := time.Now().Add(rpcWait)
	for _, k := range keys {
		for {
			_, err := kv.Get(ctxFor(t), k)
			if err == nil {
				break
			}
			if !errors.Is(err, jetstream.ErrKeyNotFound) || time.Now().After(deadline) {
				t.Fatalf("record %s not written again: %v", k, err)
			}
			<-time.After(20 * time.Millisecond) // polling the table with a deadline
		}
	}
}

// TestRepairRemovedCallees: when the other nodes remove a live node's
// callees from the reg table (they stopped hearing it while it heard
// them), the node writes them again: calls from the other nodes reach
// them, a single procedure and a shared one with callees on two nodes.
func TestRepairRemovedCallees(t *testing.T) {
	sites := startSites(t, 3)
	shared := wamp.Dict{"invoke": wamp.InvokeRoundRobin}
	callee := sites[2].join(t)
	register(t, callee, "com.repair.single", answer("node-3"), nil)
	register(t, callee, "com.repair.shared", answer("node-3"), shared)
	register(t, sites[1].join(t), "com.repair.shared", answer("node-2"), shared)
	caller := sites[0].join(t)
	callUntil(t, caller, "com.repair.single", "node-3")

	kv, keys := removeAll(t, sites[0].node)
	if len(keys) != 2 {
		t.Fatalf("records in the table: %v, want 2", keys)
	}
	waitRecords(t, kv, keys)
	callUntil(t, caller, "com.repair.single", "node-3")
	callBoth(t, caller, "com.repair.shared", "node-2", "node-3")
	if _, err := sites[0].join(t).Register(ctxFor(t), "com.repair.single", answer("node-1"), nil); !isError(err, wamp.ErrProcedureAlreadyExists) {
		t.Errorf("register the repaired single procedure on another node: %v, want %s", err, wamp.ErrProcedureAlreadyExists)
	}

	// An unregistration is not taken for another node's removal.
	reg := register(t, callee, "com.repair.gone", answer("node-3"), nil)
	callUntil(t, caller, "com.repair.gone", "node-3")
	if err := reg.Unregister(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := caller.Call(ctxFor(t), "com.repair.gone", nil, nil); !isError(err, wamp.ErrNoSuchProcedure) {
		t.Errorf("call after the unregistration: %v, want %s", err, wamp.ErrNoSuchProcedure)
	}
}

// TestRepairRacesSingle: a node registers a single procedure whose callee
// on another node was just removed from the table: the table's
// compare-and-set decides. Either the registration wins and the other
// node's callee is revoked (UNREGISTERED, its session stays), or the
// repair wins and the registration fails with
// wamp.error.procedure_already_exists; calls from a third node go to the
// one holder.
func TestRepairRacesSingle(t *testing.T) {
	sites := startSites(t, 3)
	log := &logtest.Log{}
	loser, err := joinVia(t, sites[2].router.Attach, client.Config{Logger: log.Logger(slog.LevelWarn)})
	if err != nil {
		t.Fatal(err)
	}
	register(t, loser, "com.repair.race", answer("node-3"), nil)
	winner, caller := sites[0].join(t), sites[1].join(t)
	callUntil(t, caller, "com.repair.race", "node-3")

	removeAll(t, sites[0].node)
	_, err = winner.Register(ctxFor(t), "com.repair.race", answer("node-1"), nil)
	switch {
	case err == nil:
		callUntil(t, caller, "com.repair.race", "node-1")
		callUntil(t, loser, "com.repair.race", "node-1")
		if !strings.Contains(log.String(), "router revoked a registration") {
			t.Errorf("the loser was not told: %s", log.String())
		}
		if err := loser.Err(); err != nil {
			t.Errorf("the revoked callee's session ended: %v", err)
		}
	case isError(err, wamp.ErrProcedureAlreadyExists):
		callUntil(t, caller, "com.repair.race", "node-3")
	default:
		t.Fatalf("register: %v", err)
	}
}

// heardAgainWait bounds each call after the heal: a call whose messages
// a node dropped must end with an ERROR well before it.
const heardAgainWait = 5 * time.Second

// TestServeHeardAgain: with on_isolation serve, a node cut off for just
// over a lease is lost to the others, who hear it again (the same life)
// after the heal, sometimes before it finds itself isolated and loses
// them in turn, hearing them again only later. A node drops the messages
// of a member it holds lost: each call made meanwhile must end, with the
// result or an ERROR (wamp.error.canceled: its messages were dropped;
// wamp.error.no_such_procedure: the others removed the callee, which
// its node writes back), never wait for its caller's deadline; and calls
// soon reach the callee again.
func TestServeHeardAgain(t *testing.T) {
	sites := startSites(t, 3, clustertest.Lease(fenceLease, fenceLease/10),
		func(_ int, c *cluster.Config) { c.OnIsolation = cluster.Serve })
	register(t, sites[2].join(t), "com.heard.again", answer("node-3"), nil)
	caller := sites[0].join(t)
	callUntil(t, caller, "com.heard.again", "node-3")

	events := make(chan cluster.MemberEvent, 16)
	stop := sites[0].node.Watch(func(ev cluster.MemberEvent) { events <- ev })
	defer stop()
	clustertest.Cut(t, sites[2].node)
	waitLost(t, events, sites[2].node.Self())
	clustertest.Heal(t, sites[2].node)
	waitUp(t, events, rpcWait, "node-3") // node-3 may not hear node-1 yet

	deadline := time.Now().Add(rpcWait)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), heardAgainWait)
		res, err := caller.Call(ctx, "com.heard.again", nil, nil)
		cancel()
		switch {
		case err == nil:
			if len(res.Args) != 1 || res.Args[0] != "node-3" {
				t.Fatalf("the call after the heal: %v", res.Args)
			}
			return
		case !isError(err, wamp.ErrCanceled) && !isError(err, wamp.ErrNoSuchProcedure):
			t.Fatalf("the call after the heal: %v, want its result, %s or %s", err, wamp.ErrCanceled, wamp.ErrNoSuchProcedure)
		case time.Now().After(deadline):
			t.Fatalf("the call after the heal: %v after %v", err, rpcWait)
		}
		<-time.After(5 * time.Millisecond) // until the callee's node writes it back: poll with a deadline
	}
}
