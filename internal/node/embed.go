package node

import (
	"context"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/wamp"
)

// Join joins cfg.Realm of the first router worker (in config order) that
// serves it, over an in-memory peer pair (transport/local): the session
// of a program that embeds the node. It does not authenticate, as a
// router component does not in Crossbar: it is anonymous, with role (a
// role of the realm, or TrustedRole; "" means "anonymous") and
// cfg.AuthID (a random authid when ""). Otherwise it is one of the
// realm's clients like any other: the realm's limits, its role's
// permissions and the meta API apply as to a session over a socket, and
// cfg.Auth must offer nothing (the join fails with
// wamp.error.no_auth_method). ctx bounds the join. Before Start has
// succeeded and after Stop it returns ErrNotRunning. A realm that no
// router worker serves fails with wamp.error.no_such_realm; a role the
// realm does not define with wamp.error.no_such_role.
func (n *Node) Join(ctx context.Context, role string, cfg client.Config) (*client.Session, error) {
	p, err := n.Dial(role, cfg)
	if err != nil {
		return nil, err
	}
	return client.Join(ctx, p, cfg)
}

// Dial is Join's connection: an in-memory peer attached to the router
// worker that serves cfg.Realm, on which a join of cfg.Realm as Join
// describes succeeds. It fails as Join does when the node does not run or
// no router worker serves the realm.
func (n *Node) Dial(role string, cfg client.Config) (wamp.Peer, error) {
	ru, err := n.routerOf(string(cfg.Realm))
	if err != nil {
		return nil, err
	}
	anon := auth.NewAnonymous(auth.AnonymousOptions{Role: role, AuthID: cfg.AuthID})
	gate := ru.router.NewGate(router.GateOptions{Auths: []auth.Authenticator{anon}, JoinTimeout: -1})
	return embeddedPeer(gate), nil
}

// embeddedPeer makes an in-memory pair, attaches one end to gate on a
// new goroutine (which ends with the session; Router.Close waits for
// it) and returns the other.
func embeddedPeer(gate attacher) wamp.Peer {
	mine, theirs := local.Pair(local.Options{})
	go gate.Attach(theirs)
	return mine
}

// routerOf returns the first router worker that serves realm, while the
// node runs.
func (n *Node) routerOf(realm string) (*routerUnit, error) {
	n.mu.Lock()
	running := n.state == stateRunning
	n.mu.Unlock()
	if !running {
		return nil, ErrNotRunning
	}
	for _, ru := range n.routers {
		for _, name := range ru.realmNames() {
			if name == realm {
				return ru, nil
			}
		}
	}
	return nil, wamp.Errorf(wamp.ErrNoSuchRealm, "no router worker serves realm %q", realm)
}
