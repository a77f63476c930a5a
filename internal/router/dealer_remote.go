package router

import (
	"io"
	"time"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// remotes are the dealer's sessions for sessions on other nodes of the
// cluster, so that policies, progressive results, timeouts, cancel modes
// and disclosure work across nodes as they do on one:
//   - a remote callee stands for a callee session of another node that
//     the cluster's table lists; the dealer picks it as any callee, and
//     its peer forwards the INVOCATION and INTERRUPT to that node, whose
//     RESULT and ERROR come back through RealmLink.DeliverCall as the YIELD
//     and ERROR of the remote callee. This node, the caller's, owns the
//     call: its timer and its cancel.
//   - a remote caller stands for the callers on another node of one local
//     callee session: the INVOCATION it delivers gets a fresh ID in the
//     callee's scope, and its peer forwards the RESULT or ERROR back.
//
// They are not joined to the realm: not in the meta API's session list,
// no hooks, and their gate is Internal, so no limit refuses them. Their
// registrations count in the realm's registrations like local ones.
// dealer.mu guards remotes and its sessions' dealer state.
type remotes struct {
	rm    *realm
	gate  *Gate
	nodes map[Node]*nodeRemotes
}

// nodeRemotes are the remote sessions of one node.
type nodeRemotes struct {
	callees map[wamp.ID]*session // by their session ID on that node
	callers map[wamp.ID]*session // by the local callee session's ID
}

func newRemotes(rm *realm) *remotes {
	return &remotes{
		rm:    rm,
		gate:  &Gate{r: rm.router, opts: GateOptions{Internal: true}},
		nodes: make(map[Node]*nodeRemotes),
	}
}

// announcedAlready is the announced channel of remote callees: their node
// sent REGISTERED before the cluster's table listed them.
var announcedAlready = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// remotePeer is the peer of a remote session: Send forwards INVOCATION
// and INTERRUPT (remote callee) or RESULT and ERROR (remote caller) to
// node. An INVOCATION or INTERRUPT that cannot be sent ends its call with
// ERROR wamp.error.canceled, as if the callee had left
// (junction.error.cluster_isolated while this node is fenced).
type remotePeer struct {
	s      *session
	node   Node
	callee wamp.ID // the callee session's ID (on node for a remote callee, here for a remote caller)
}

var _ wamp.Peer = (*remotePeer)(nil)

func (p *remotePeer) Send(m wamp.Message) error {
	if err := p.s.realm.fabric.Send(p.node, p.callee, m); err != nil {
		p.failed(m)
		return wamp.ErrClosed
	}
	return nil
}

// failed ends the call of an INVOCATION or INTERRUPT that could not be
// sent to the callee's node. Called with no lock held.
func (p *remotePeer) failed(m wamp.Message) {
	var req wamp.ID
	switch m := m.(type) {
	case *wamp.Invocation:
		req = m.Request
	case *wamp.Interrupt:
		req = m.Request
	default:
		return
	}
	uri := wamp.ErrCanceled
	if p.s.realm.fenced.Load() {
		uri = wamp.ErrClusterIsolated
	}
	p.s.handleError(&wamp.Error{RequestType: wamp.TypeInvocation, Request: req, Details: wamp.Dict{},
		Error: uri, Args: wamp.List{"the callee's node cannot be reached"}})
}

func (p *remotePeer) Recv() (wamp.Message, error) { return nil, io.EOF }
func (p *remotePeer) Close() error                { return nil }
func (p *remotePeer) Info() wamp.PeerInfo         { return wamp.PeerInfo{Transport: "cluster"} }

// remoteOf returns the remote peer of s, or nil for a local session.
func remoteOf(s *session) *remotePeer {
	p, _ := s.peer.(*remotePeer)
	return p
}

// session makes a remote session with ID id, whose peer sends to node n
// about the callee session callee.
func (r *remotes) session(id wamp.ID, n Node, callee wamp.ID, canCancel bool) *session {
	p := &remotePeer{node: n, callee: callee}
	s := &session{id: id, peer: p, router: r.rm.router, gate: r.gate, realm: r.rm, canCancel: canCancel}
	p.s = s
	return s
}

func (r *remotes) node(n Node, create bool) *nodeRemotes {
	nr := r.nodes[n]
	if nr == nil && create {
		nr = &nodeRemotes{callees: make(map[wamp.ID]*session), callers: make(map[wamp.ID]*session)}
		r.nodes[n] = nr
	}
	return nr
}

// callee returns the remote callee for session id on node n, made if
// create.
func (r *remotes) callee(n Node, id wamp.ID, canCancel, create bool) *session {
	nr := r.node(n, create)
	if nr == nil {
		return nil
	}
	s := nr.callees[id]
	if s == nil && create {
		s = r.session(id, n, id, canCancel)
		nr.callees[id] = s
	}
	return s
}

// caller returns the remote caller of node n for the local callee
// session callee, made if create.
func (r *remotes) caller(n Node, callee wamp.ID, create bool) *session {
	nr := r.node(n, create)
	if nr == nil {
		return nil
	}
	s := nr.callers[callee]
	if s == nil && create {
		s = r.session(callee, n, callee, false)
		nr.callers[callee] = s
	}
	return s
}

// collect forgets remote callee s once it is a callee of nothing and
// serves no call.
func (r *remotes) collect(s *session) {
	p := remoteOf(s)
	nr := r.nodes[p.node]
	if nr == nil || nr.callees[s.id] != s || len(s.regs.m) > 0 || len(s.invs.m) > 0 {
		return
	}
	delete(nr.callees, s.id)
	r.forgetNode(p.node, nr)
}

func (r *remotes) forgetNode(n Node, nr *nodeRemotes) {
	if len(nr.callees) == 0 && len(nr.callers) == 0 {
		delete(r.nodes, n)
	}
}

// sessionLeft forgets the remote callers of local session id, which left
// (its removal already ended their calls).
func (r *remotes) sessionLeft(id wamp.ID) {
	for n, nr := range r.nodes {
		delete(nr.callers, id)
		r.forgetNode(n, nr)
	}
}

// setRemote: see RealmLink.SetRegistration.
func (d *dealer) setRemote(r Registration) {
	m, ok := uriindex.ParseMatch(r.Match)
	if !ok || d.remote == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	reg, ok := d.index.Get(string(r.Procedure), m)
	if ok {
		d.dropRemoteCallees(reg, r.Callees)
		reg, ok = d.index.Get(string(r.Procedure), m)
	}
	if len(r.Callees) == 0 {
		return
	}
	if !ok {
		reg = &registration{id: r.ID, procedure: r.Procedure, match: m, weight: registrationCost.weight(r.Procedure, m), policy: r.Policy, created: time.Now()}
		d.index.Set(string(r.Procedure), m, reg)
		d.byID[reg.id] = reg
	}
	reg.policy = r.Policy
	for _, c := range r.Callees {
		s := d.remote.callee(c.Node, c.Session, c.CanCancel, true)
		if s.regs.m[reg.id] != nil {
			continue
		}
		reg.add(callee{s: s, announced: announcedAlready, order: c.Order})
		s.regs.put(reg.id, reg)
		s.regWeight += reg.weight
		d.holders.hold(reg.weight, len(reg.callees) == 1)
	}
}

// dropRemoteCallees removes from reg its remote callees not in keep.
// dealer.mu must be held.
func (d *dealer) dropRemoteCallees(reg *registration, keep []Callee) {
	var gone []*session
	for _, c := range reg.callees {
		if p := remoteOf(c.s); p != nil && !listed(keep, p.node, c.s.id) {
			gone = append(gone, c.s)
		}
	}
	for _, s := range gone {
		d.drop(reg, s)
		d.remote.collect(s)
	}
}

func listed(cs []Callee, n Node, id wamp.ID) bool {
	for _, c := range cs {
		if c.Node == n && c.Session == id {
			return true
		}
	}
	return false
}

// staleRemote is what register does with reg, the registration of a
// pattern the cluster's table has just let a local session register with
// policy: when reg conflicts (single, or another policy) and has only
// remote callees, they are stale (the table's newer record has not
// reached this node yet) and are dropped. It returns the registration
// left, if any. dealer.mu must be held.
func (d *dealer) staleRemote(reg *registration, policy string) (*registration, bool) {
	if policy != wamp.InvokeSingle && reg.policy == policy {
		return reg, true
	}
	for _, c := range reg.callees {
		if remoteOf(c.s) == nil {
			return reg, true
		}
	}
	d.dropRemoteCallees(reg, nil)
	return d.index.Get(string(reg.procedure), reg.match)
}

// remoteInvocation delivers the INVOCATION of a call made on node from to
// the local session callee, under a fresh ID in its scope. A callee that
// left or unregistered meanwhile makes the call fail on from.
func (d *dealer) remoteInvocation(from Node, callee wamp.ID, inv *wamp.Invocation) {
	s := d.realm.session(callee)
	d.mu.Lock()
	reg := (*registration)(nil)
	if s != nil {
		reg = s.regs.m[inv.Registration]
	}
	if reg == nil {
		d.mu.Unlock()
		d.refuse(from, callee, inv.Request, s == nil)
		return
	}
	if _, ppt := option(inv.Details, wamp.OptPPTScheme); ppt && s.ppt&pptCallee == 0 {
		d.mu.Unlock()
		d.realm.fabric.Send(from, callee, wamp.ErrorFor(wamp.TypeCall, inv.Request, errPPTCallee(reg.procedure)))
		return
	}
	pc := d.remote.caller(from, callee, true)
	if pc.calls.m[inv.Request] != nil {
		d.mu.Unlock()
		return
	}
	progress, _ := optBool(inv.Details, wamp.OptReceiveProgress, false)
	c := &call{caller: pc, request: inv.Request, callee: s, invocation: s.invIDs.Next(), progress: progress,
		concurrent: len(pc.calls.m) > 0, start: since()}
	pc.calls.put(c.request, c)
	s.invs.put(c.invocation, c)
	d.inFlight++
	announced := reg.announcedOf(s)
	d.mu.Unlock()
	<-announced
	// The calls of one node to s come as one stand-in caller: while it
	// has others in flight, their INVOCATIONs go out in batches, as an
	// in-process caller's (sendInvocation).
	pc.sendInvocation(c, &wamp.Invocation{Request: c.invocation, Registration: inv.Registration,
		Details: inv.Details, Args: inv.Args, Kwargs: inv.Kwargs, Raw: inv.Raw})
}

// refuse answers node from's INVOCATION request for a local callee that
// is gone (left) or no longer registered.
func (d *dealer) refuse(from Node, callee, request wamp.ID, left bool) {
	e := wamp.Errorf(wamp.ErrNoSuchProcedure, "the callee unregistered")
	if left {
		e = wamp.Errorf(wamp.ErrCanceled, "callee disconnected from in-flight request")
	}
	d.realm.fabric.Send(from, callee, wamp.ErrorFor(wamp.TypeCall, request, e))
}

// announcedOf is the announced channel of callee s. dealer.mu must be held.
func (r *registration) announcedOf(s *session) chan struct{} {
	for _, c := range r.callees {
		if c.s == s {
			return c.announced
		}
	}
	return announcedAlready
}

// remoteInterrupt passes node from's INTERRUPT on to the local callee of
// the call. Mode kill keeps the call until the callee answers; the others
// end it here (the caller's node has answered its caller).
func (d *dealer) remoteInterrupt(from Node, callee wamp.ID, m *wamp.Interrupt) {
	d.mu.Lock()
	pc := d.remote.caller(from, callee, false)
	var c *call
	if pc != nil {
		c = pc.calls.m[m.Request]
	}
	if c == nil || (c.killing && optMode(m) == wamp.CancelKill) {
		d.mu.Unlock()
		return
	}
	if optMode(m) == wamp.CancelKill {
		c.killing = true
	} else {
		d.forget(c)
	}
	to, it := c.callee, &wamp.Interrupt{Request: c.invocation, Options: m.Options}
	d.mu.Unlock()
	to.sendFrom(pc, it, wamp.TypeInterrupt)
}

func optMode(m *wamp.Interrupt) string {
	mode, _ := optString(m.Options, wamp.OptMode, wamp.CancelKill)
	return mode
}

// remoteResult takes the RESULT of node from's callee session callee as
// its YIELD.
func (d *dealer) remoteResult(from Node, callee wamp.ID, m *wamp.Result) {
	s := d.remoteCallee(from, callee)
	if s == nil {
		return
	}
	y := &wamp.Yield{Request: m.Request, Options: wamp.Dict{}, Args: m.Args, Kwargs: m.Kwargs, Raw: m.Raw}
	copyPassthru(y.Options, m.Details)
	if progress, _ := optBool(m.Details, wamp.OptProgress, false); progress {
		y.Options[wamp.OptProgress] = true
	}
	s.handleYield(y)
	d.collectCallee(s)
}

// remoteError takes the ERROR of node from's callee session callee as
// its ERROR for the INVOCATION.
func (d *dealer) remoteError(from Node, callee wamp.ID, m *wamp.Error) {
	s := d.remoteCallee(from, callee)
	if s == nil {
		return
	}
	s.handleError(&wamp.Error{RequestType: wamp.TypeInvocation, Request: m.Request, Details: m.Details,
		Error: m.Error, Args: m.Args, Kwargs: m.Kwargs, Raw: m.Raw})
	d.collectCallee(s)
}

func (d *dealer) remoteCallee(n Node, id wamp.ID) *session {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.remote.callee(n, id, false, false)
}

func (d *dealer) collectCallee(s *session) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.remote.collect(s)
}

// dropNode: see RealmLink.DropNode.
func (d *dealer) dropNode(n Node) {
	var out outbox
	d.mu.Lock()
	nr := d.remote.nodes[n]
	delete(d.remote.nodes, n)
	if nr != nil {
		for _, s := range nr.callees {
			d.release(s, &out)
		}
		for _, s := range nr.callers {
			d.release(s, &out)
		}
	}
	d.mu.Unlock()
	out.flush()
}
