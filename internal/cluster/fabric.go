package cluster

import (
	"context"
	"log/slog"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// Fabric links a router's realms to the other nodes of the cluster over
// a Node: router.Options.Fabric. Make it with the router, Start it once
// the node has joined (before the router's sessions come), and Close it
// after the router.
type Fabric struct {
	events   *pubsub
	calls    *calls
	sessions *sessions
	roster   *roster
}

var _ router.Fabric = (*Fabric)(nil)

// NewFabric makes the fabric of node n; nothing reaches the network
// before Start.
func NewFabric(n *Node, log *slog.Logger) *Fabric {
	f := &Fabric{events: newPubSub(n, log), calls: newCalls(n, log), sessions: newSessions(n, log),
		roster: newRoster(n, log)}
	f.sessions.servers = f.events.membersIn
	f.roster.onRejoin = f.sessions.rejoined
	f.roster.onWillRemoved = f.sessions.rewriteWill
	f.roster.willsMissing = f.sessions.willsMissing
	return f
}

// Start opens the cluster's tables and starts mirroring them, once the
// node has joined.
func (f *Fabric) Start(ctx context.Context) error {
	if err := f.events.start(ctx); err != nil {
		return err
	}
	if err := f.calls.start(ctx); err != nil {
		return err
	}
	f.sessions.node.Handle(kindLost, f.sessions.onLost)
	if err := f.sessions.start(ctx, f.calls.again); err != nil {
		return err
	}
	f.roster.start(f.sessions.table())
	return nil
}

// Realm links realm name (router.Fabric).
func (f *Fabric) Realm(name wamp.URI, link *router.RealmLink) router.RealmFabric {
	return &realmFabric{realmEvents: f.events.link(name, link), callRealm: f.calls.realm(name, link),
		realmSessions: f.sessions.link(name, link), realmRoster: &realmRoster{ro: f.roster, name: name}}
}

// Leave tells the fabric that the node is stopping: from now on its
// sessions' unregistrations leave the registrations table as it is, and
// their roster records and testaments stay (the other members remove
// this node's callees and records when it leaves), and it stops reaping
// (the others take its reaping over), so that a node stops at once even
// when the table cannot be written, as when the last nodes of a cluster
// stop.
func (f *Fabric) Leave() {
	f.calls.leaving.Store(true)
	f.roster.stop()
	f.sessions.cancel()
}

// Close stops the fabric; the node stays up.
func (f *Fabric) Close() {
	f.roster.close()
	f.sessions.close()
	f.calls.close()
	f.events.close()
}

// realmFabric is one realm's side of the cluster: its events and its
// calls.
type realmFabric struct {
	*realmEvents
	*callRealm
	*realmSessions
	*realmRoster
}

var _ router.RealmFabric = (*realmFabric)(nil)

func (r *realmFabric) Close() {
	r.realmSessions.close()
	r.callRealm.Close()
	r.realmEvents.close()
}
