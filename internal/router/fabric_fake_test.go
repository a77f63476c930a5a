package router

import (
	"errors"
	"hash/fnv"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/junction-wamp/junction/wamp"
)

// fakeCluster links routers as package cluster does, in memory: one
// table of registrations, mirrored into every other router's dealer as it
// changes (under the table's lock, so in the table's order), and the
// messages between nodes delivered in order by one goroutine per node.
type fakeCluster struct {
	mu    sync.Mutex
	nodes []*fakeNode
	table map[fakeKey]*Registration
	order uint64
	cut   bool // Send fails: the other node cannot be reached
}

type fakeKey struct {
	procedure wamp.URI
	match     string
}

// fakeNode is one router's Fabric and its realm's RealmFabric (one realm).
type fakeNode struct {
	c     *fakeCluster
	node  Node
	link  *RealmLink
	inbox chan fakeMsg
	done  chan struct{}
	down  bool // guarded by c.mu
}

type fakeMsg struct {
	from   Node
	callee wamp.ID
	m      wamp.Message
}

var (
	_ Fabric      = (*fakeNode)(nil)
	_ RealmFabric = (*fakeNode)(nil)
)

func newFakeCluster() *fakeCluster { return &fakeCluster{table: make(map[fakeKey]*Registration)} }

// router starts a router with realm1 linked to the cluster as node name.
func (c *fakeCluster) router(t *testing.T, name string) *Router {
	t.Helper()
	n := &fakeNode{c: c, node: Node{Name: name, Epoch: 1}, inbox: make(chan fakeMsg, 1024), done: make(chan struct{})}
	c.mu.Lock()
	c.nodes = append(c.nodes, n)
	c.mu.Unlock()
	r, err := New(Options{Realms: []RealmOptions{{Name: "realm1"}}, Fabric: n})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func (n *fakeNode) Realm(name wamp.URI, link *RealmLink) RealmFabric {
	n.link = link
	go n.serve()
	return n
}

func (n *fakeNode) serve() {
	defer close(n.done)
	for msg := range n.inbox {
		n.link.DeliverCall(msg.from, msg.callee, msg.m)
	}
}

func (n *fakeNode) Close() {
	n.c.mu.Lock()
	if !n.down {
		n.down = true
		close(n.inbox)
	}
	n.c.mu.Unlock()
	<-n.done
}

func (n *fakeNode) RegistrationID(procedure wamp.URI, match string) wamp.ID {
	h := fnv.New64a()
	h.Write([]byte(match + " " + string(procedure)))
	return wamp.ID(h.Sum64()&(wamp.MaxID-1)) + 1
}

func (n *fakeNode) Register(reg Registration, session wamp.ID, canCancel bool) (uint64, error) {
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	k := fakeKey{reg.Procedure, reg.Match}
	rec := c.table[k]
	if rec == nil {
		rec = &Registration{ID: reg.ID, Procedure: reg.Procedure, Match: reg.Match, Policy: reg.Policy}
		c.table[k] = rec
	} else if reg.Policy == wamp.InvokeSingle || rec.Policy != reg.Policy {
		return 0, wamp.Errorf(wamp.ErrProcedureAlreadyExists, "taken")
	}
	c.order++
	rec.Callees = append(rec.Callees, Callee{Node: n.node, Session: session, Order: c.order, CanCancel: canCancel})
	c.mirror(k)
	return c.order, nil
}

func (n *fakeNode) Unregister(procedure wamp.URI, match string, session wamp.ID) error {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()
	n.c.remove(fakeKey{procedure, match}, func(e Callee) bool { return e.Node == n.node && e.Session == session })
	return nil
}

// remove deletes the callees del picks from the record k. c.mu must be held.
func (c *fakeCluster) remove(k fakeKey, del func(Callee) bool) {
	rec := c.table[k]
	if rec == nil {
		return
	}
	rec.Callees = slices.DeleteFunc(rec.Callees, del)
	if len(rec.Callees) == 0 {
		delete(c.table, k)
	}
	c.mirror(k)
}

// mirror tells every live node the record k, with the callees of the
// other nodes. c.mu must be held.
func (c *fakeCluster) mirror(k fakeKey) {
	rec := c.table[k]
	for _, n := range c.nodes {
		if n.down || n.link == nil {
			continue
		}
		r := Registration{Procedure: k.procedure, Match: k.match}
		if rec != nil {
			r = *rec
			r.Callees = slices.DeleteFunc(slices.Clone(rec.Callees), func(e Callee) bool { return e.Node == n.node })
		}
		n.link.SetRegistration(r)
	}
}

var errFakeDown = errors.New("fake cluster: node down")

func (n *fakeNode) Send(to Node, callee wamp.ID, m wamp.Message) error {
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.nodes {
		if o.node == to && !o.down && !c.cut {
			o.inbox <- fakeMsg{from: n.node, callee: callee, m: m}
			return nil
		}
	}
	return errFakeDown
}

func (n *fakeNode) Sync() error { return nil }

// kill takes node n out of the cluster without goodbye: its callees leave
// the table and the other nodes drop its sessions.
func (c *fakeCluster) kill(n *fakeNode) {
	c.mu.Lock()
	if !n.down {
		n.down = true
		close(n.inbox)
	}
	for k := range c.table {
		c.remove(k, func(e Callee) bool { return e.Node == n.node })
	}
	others := slices.DeleteFunc(slices.Clone(c.nodes), func(o *fakeNode) bool { return o.down })
	c.mu.Unlock()
	for _, o := range others {
		o.link.DropNode(n.node)
	}
}

// linked runs fn in a synctest bubble with two routers linked by a fake
// cluster, each with realm1.
func linked(t *testing.T, fn func(t *testing.T, c *fakeCluster, r1, r2 *Router)) {
	synctest.Test(t, func(t *testing.T) {
		c := newFakeCluster()
		fn(t, c, c.router(t, "n1"), c.router(t, "n2"))
	})
}

// The fake cluster of calls keeps events on each node.
func (n *fakeNode) Interest(Subscription, bool) {}
func (n *fakeNode) Published(*Publication)      {}
