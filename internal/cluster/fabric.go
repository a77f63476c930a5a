package cluster

import (
	"context"
	"log/slog"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/wamp"
)

// Fabric links a router's realms to the other nodes of the cluster over
// a Node: router.Options.Fabric. Start it before the router and close it
// after.
type Fabric struct {
	calls *calls
}

var _ router.Fabric = (*Fabric)(nil)

// NewFabric opens the cluster's tables on n and starts mirroring them.
func NewFabric(ctx context.Context, n *Node, log *slog.Logger) (*Fabric, error) {
	c, err := newCalls(ctx, n, log)
	if err != nil {
		return nil, err
	}
	return &Fabric{calls: c}, nil
}

// Realm links realm name (router.Fabric).
func (f *Fabric) Realm(name wamp.URI, link *router.RealmLink) router.RealmFabric {
	return f.calls.realm(name, link)
}

// Close stops the fabric; the node stays up.
func (f *Fabric) Close() { f.calls.close() }
