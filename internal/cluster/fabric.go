package cluster

import (
	"context"
	"log/slog"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/wamp"
)

// Fabric links a router's realms to the other nodes of the cluster over
// a Node: router.Options.Fabric. Make it with the router, Start it once
// the node has joined (before the router's sessions come), and Close it
// after the router.
type Fabric struct {
	calls *calls
}

var _ router.Fabric = (*Fabric)(nil)

// NewFabric makes the fabric of node n; nothing reaches the network
// before Start.
func NewFabric(n *Node, log *slog.Logger) *Fabric {
	return &Fabric{calls: newCalls(n, log)}
}

// Start opens the cluster's tables and starts mirroring them, once the
// node has joined.
func (f *Fabric) Start(ctx context.Context) error { return f.calls.start(ctx) }

// Realm links realm name (router.Fabric).
func (f *Fabric) Realm(name wamp.URI, link *router.RealmLink) router.RealmFabric {
	return f.calls.realm(name, link)
}

// Close stops the fabric; the node stays up.
func (f *Fabric) Close() { f.calls.close() }
