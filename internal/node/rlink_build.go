package node

import (
	"crypto/ed25519"
	"fmt"
	"sync"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// rlinkClass names router links in the component logs.
const rlinkClass = "rlink"

// routerLinks builds the "rlinks" of the realms of a router worker. Each
// link is a component that starts after the listeners and connects in the
// background, as Crossbar starts them without waiting.
func (b *builder) routerLinks(path string, r *router.Router, realms []*config.Realm) {
	for i, rm := range realms {
		if rm == nil {
			continue
		}
		for j, lc := range rm.RLinks {
			lp := fmt.Sprintf("%s.realms[%d].rlinks[%d]", path, i, j)
			b.fail(b.routerLink(lp, r, rm.Name, lc))
		}
	}
}

func (b *builder) routerLink(path string, r *router.Router, realm string, lc *config.RouterLink) error {
	if lc.Transport == nil {
		return fieldError(path+".transport", fmt.Errorf("node: missing"))
	}
	dial, err := ComponentDialer(lc.Transport, b.dir)
	if err != nil {
		return fieldError(path+".transport", err)
	}
	url := componentURL(lc.Transport)
	l := newRLink(rlinkOptions{
		ID: lc.ID, LocalRealm: wamp.URI(realm), RemoteRealm: wamp.URI(lc.Realm),
		AuthID: lc.AuthID, ExcludeAuthID: lc.ExcludeAuthID,
		Forward: rlinkForward{LocalEvents: lc.ForwardLocalEvents, RemoteEvents: lc.ForwardRemoteEvents,
			LocalInvocations: lc.ForwardLocalInvocations, RemoteInvocations: lc.ForwardRemoteInvocations},
		LocalDial: localDialer(internalGate(r, TrustedRole)), RemoteDial: dial, URL: url,
		Key: b.nodeKey(), Logger: b.log,
	})
	b.node.components = append(b.node.components, &componentUnit{path: path, url: url, background: true, comp: l,
		cfg: &config.Component{Class: rlinkClass, Realm: realm}})
	return nil
}

// nodeKey returns the loader of the node key that every link of the node
// shares: loaded (or generated) at the first link's start, not at build,
// so that junction check writes nothing.
func (b *builder) nodeKey() func() (ed25519.PrivateKey, error) {
	if b.keyLoader == nil {
		dir, log := b.resolve("."), b.log
		b.keyLoader = sync.OnceValues(func() (ed25519.PrivateKey, error) { return loadNodeKey(dir, log) })
	}
	return b.keyLoader
}
