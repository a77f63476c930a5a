package router

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/internal/wamp"
)

// fakeCluster links routers in one process as package cluster does over
// NATS, without encoding: each node keeps the others' interest and passes
// a publication to the nodes with a matching subscription, on the
// publisher's goroutine.
type fakeCluster struct {
	mu    sync.Mutex
	nodes []*fakeNode
}

// fakeNode is one router's Fabric.
type fakeNode struct {
	c        *fakeCluster
	links    map[wamp.URI]*RealmLink
	interest map[wamp.URI]map[Subscription]bool // realm -> local subscriptions
	log      []string                           // interest changes: "+prefix com.a"
	received int                                // envelopes delivered here
	closed   []wamp.URI                         // realms whose fabric was closed
}

var _ Fabric = (*fakeNode)(nil)

func (c *fakeCluster) node() *fakeNode {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := &fakeNode{c: c, links: map[wamp.URI]*RealmLink{}, interest: map[wamp.URI]map[Subscription]bool{}}
	c.nodes = append(c.nodes, n)
	return n
}

func (n *fakeNode) Realm(name wamp.URI, link *RealmLink) RealmFabric {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()
	n.links[name] = link
	n.interest[name] = map[Subscription]bool{}
	return &fakeRealm{n: n, name: name}
}

// stats returns n's interest log and the envelopes it received.
func (n *fakeNode) stats() (log []string, received int) {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()
	return append([]string(nil), n.log...), n.received
}

type fakeRealm struct {
	n    *fakeNode
	name wamp.URI
}

func (f *fakeRealm) Interest(sub Subscription, on bool) {
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

func (f *fakeRealm) Published(p *Publication) {
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
func (f *fakeRealm) others() []*RealmLink {
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
func (f *fakeRealm) interested(topic wamp.URI) []*RealmLink {
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

func (f *fakeRealm) Close() {
	f.n.c.mu.Lock()
	defer f.n.c.mu.Unlock()
	f.n.closed = append(f.n.closed, f.name)
}

// cluster runs fn in a synctest bubble with n routers linked by a fake
// cluster, each with realm "realm1" (and opts' realms).
func cluster(t *testing.T, n int, opts Options, fn func(t *testing.T, rs []*Router, ns []*fakeNode)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		if opts.Realms == nil {
			opts.Realms = []RealmOptions{{Name: "realm1"}}
		}
		c := &fakeCluster{}
		var rs []*Router
		var ns []*fakeNode
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
