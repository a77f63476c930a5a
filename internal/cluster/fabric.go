package cluster

import (
	"context"
	"log/slog"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/wamp"
)

// Fabric links a router's realms to the other members of the cluster
// over a Node (router.Options.Fabric). Make it after the Node and before
// the router; close it after the router and before the Node.
type Fabric struct {
	events *pubsub
}

var _ router.Fabric = (*Fabric)(nil)

// NewFabric opens the cluster's tables on n and starts mirroring them;
// ctx bounds the start.
func NewFabric(ctx context.Context, n *Node, log *slog.Logger) (*Fabric, error) {
	events, err := startPubSub(ctx, n, log)
	if err != nil {
		return nil, err
	}
	return &Fabric{events: events}, nil
}

// Realm links a realm of the router to the cluster.
func (f *Fabric) Realm(name wamp.URI, link *router.RealmLink) router.RealmFabric {
	return &realmFabric{realmEvents: f.events.link(name, link)}
}

// Close stops the fabric's goroutines.
func (f *Fabric) Close() { f.events.close() }

// realmFabric is one realm's side of the cluster.
type realmFabric struct {
	*realmEvents
}

var _ router.RealmFabric = (*realmFabric)(nil)

func (r *realmFabric) Close() { r.realmEvents.close() }
