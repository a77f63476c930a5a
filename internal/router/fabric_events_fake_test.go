package router

import (
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// evCluster links routers in one process as package cluster does over
// NATS, without encoding: each node keeps the others' interest and passes
// a publication to the nodes with a matching subscription, on the
// publisher's goroutine.
type evCluster struct {
	mu    sync.Mutex
	nodes []*evNode
}

// evNode is one router's Fabric.
type evNode struct {
	c        *evCluster
	links    map[wamp.URI]*RealmLink
	interest map[wamp.URI]map[Subscription]bool // realm -> local subscriptions
	log      []string                           // interest changes: "+prefix com.a"
	received int                                // envelopes delivered here
	closed   []wamp.URI                         // realms whose fabric was closed
}

var _ Fabric = (*evNode)(nil)

func (c *evCluster) node() *evNode {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := &evNode{c: c, links: map[wamp.URI]*RealmLink{}, interest: map[wamp.URI]map[Subscription]bool{}}
	c.nodes = append(c.nodes, n)
	return n
}

func (n *evNode) Realm(name wamp.URI, link *RealmLink) RealmFabric {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()
	n.links[name] = link
	n.interest[name] = map[Subscription]bool{}
	return &evRealm{n: n, name: name}
}

// stats returns n's interest log and the envelopes it received.
func (n *evNode) stats() (log []string, received int) {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()
	return append([]string(nil), n.log...), n.received
}

type evRealm struct {
	n    *evNode
	name wamp.URI
}

func (f *evRealm) Interest(sub Subscription, on bool) {
	f.n.c.mu.Lock()
	defer f.n.c.mu.Unlock()
	sign := "-"
	if on {
		sign = "+"
		f.n.interest[f.name][sub] = true
	} else {
		delete(f.n.interest[f.name], sub)
	}
	f.n.log = append(f.n.log, fmt.Sprintf("%s%s %s", sign, sub.Match, sub.Topic))
}

func (f *evRealm) Published(p *Publication) {
	if p.Retain {
		for _, l := range f.others() {
			l.Retain(p)
		}
	}
	for _, l := range f.interested(p.Topic) {
		l.Deliver(p)
	}
}

// others returns the links of the realm on every node, this one included
// (its retained event seen again must change nothing).
func (f *evRealm) others() []*RealmLink {
	f.n.c.mu.Lock()
	defer f.n.c.mu.Unlock()
	var ls []*RealmLink
	for _, o := range f.n.c.nodes {
		if l := o.links[f.name]; l != nil {
			ls = append(ls, l)
		}
	}
	return ls
}

// interested returns the links of the other nodes with a subscription
// matching topic, counting an envelope received by each.
func (f *evRealm) interested(topic wamp.URI) []*RealmLink {
	f.n.c.mu.Lock()
	defer f.n.c.mu.Unlock()
	var ls []*RealmLink
	for _, o := range f.n.c.nodes {
		var idx uriindex.Index[bool]
		for sub := range o.interest[f.name] {
			idx.Set(string(sub.Topic), sub.Match, true)
		}
		found := false
		idx.Match(string(topic), func(string, uriindex.Match, bool) bool { found = true; return false })
		if o != f.n && found {
			o.received++
			ls = append(ls, o.links[f.name])
		}
	}
	return ls
}

func (f *evRealm) Close() {
	f.n.c.mu.Lock()
	defer f.n.c.mu.Unlock()
	f.n.closed = append(f.n.closed, f.name)
}

// cluster runs fn in a synctest bubble with n routers linked by a fake
// cluster, each with realm "realm1" (and opts' realms).
func cluster(t *testing.T, n int, opts Options, fn func(t *testing.T, rs []*Router, ns []*evNode)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		if opts.Realms == nil {
			opts.Realms = []RealmOptions{{Name: "realm1"}}
		}
		c := &evCluster{}
		var rs []*Router
		var ns []*evNode
		for range n {
			o := opts
			fn := c.node()
			o.Fabric = fn
			r, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rs, ns = append(rs, r), append(ns, fn)
		}
		fn(t, rs, ns)
	})
}

// The fake cluster of events keeps procedures on each node: IDs from a
// hash as the cluster's, and no other node to send to.
func (f *evRealm) RegistrationID(procedure wamp.URI, match string) wamp.ID {
	h := fnv.New64a()
	h.Write([]byte(string(f.name) + "\x00" + match + "\x00" + string(procedure)))
	return wamp.ID(h.Sum64()&(1<<53-1)) + 1
}
func (f *evRealm) Register(Registration, wamp.ID, bool) (uint64, error) { return 0, nil }
func (f *evRealm) Unregister(wamp.URI, string, wamp.ID) error           { return nil }
func (f *evRealm) Send(Node, wamp.ID, wamp.Message) error {
	return errors.New("fake cluster of events: no calls across nodes")
}
func (f *evRealm) Sync() error { return nil }
