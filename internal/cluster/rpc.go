package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// kindCall is the kind of the RPC messages between nodes (rpc_wire.go).
const kindCall Kind = 32

// Timeouts of the reg table's operations.
const (
	// tableTimeout bounds a REGISTER's or UNREGISTER's writes.
	tableTimeout = 5 * time.Second
	// syncTimeout bounds the wait of a CALL that found no registration
	// for the table (Sync).
	syncTimeout = 2 * time.Second
	// retryPause is the wait before a table operation is tried again
	// while JetStream elects a leader.
	retryPause = 50 * time.Millisecond
	// openAttempt bounds one attempt to open the table.
	openAttempt = 2 * time.Second
)

// calls is the RPC part of a node's fabric: the reg table (KV bucket
// reg, one record per (realm, match, procedure)), mirrored into every
// realm's dealer by a watcher, and the calls' messages between nodes.
type calls struct {
	node    *Node
	log     *slog.Logger
	cluster string // the cluster's name: the key of registration IDs
	badWire *lograte.Limit

	ctx     context.Context // ends at close: the watcher and table writes
	cancel  context.CancelFunc
	stop    func()        // of the membership's and the refusals' watches
	rewatch chan struct{} // asks the table's watcher to watch anew
	wg      sync.WaitGroup
	// leaving is set when the node stops: its callees' entries are left
	// to the others, who remove them when it leaves (Fabric.Leave).
	leaving atomic.Bool
	fixing  sync.Mutex // serializes reconcile (rpc_rejoin.go)

	mu      sync.Mutex         // guards the fields below; before dealer.mu
	kv      jetstream.KeyValue // the reg table; nil until start
	realms  map[wamp.URI]*callRealm
	records map[string]*record // by key, as the watcher last saw them
	// owned are this node's callees as it wrote them to the table, by
	// key; repairing, the keys whose repair is under way (rpc_repair.go).
	owned     map[string]*owned
	repairing map[string]bool
	// lost are the members reported lost, hidden from the dealers until
	// they come back, each with this node's isolation count when the
	// loss was reported (-1: it was isolated then); see dead.
	lost map[Member]int
	// refused are the live members that hold this node lost (a cut in
	// one direction): hidden from the dealers, as the lost ones, until
	// they hear this node again, but their entries stay in the table.
	refused map[Member]bool
	fenced  bool          // this node is isolated and fenced
	applied uint64        // the table's revision the dealers hold
	synced  chan struct{} // closed (and replaced) when applied grows
}

// newCalls makes the RPC part of node n's fabric; start opens its table.
func newCalls(n *Node, log *slog.Logger) *calls {
	c := &calls{node: n, log: log, cluster: n.cfg.Name, badWire: &lograte.Limit{Interval: time.Minute},
		realms: map[wamp.URI]*callRealm{}, records: map[string]*record{}, lost: map[Member]int{}, refused: map[Member]bool{},
		owned: map[string]*owned{}, repairing: map[string]bool{},
		synced: make(chan struct{}), rewatch: make(chan struct{}, 1), stop: func() {}}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c
}

// start opens the reg table and starts mirroring it, once n has joined.
func (c *calls) start(ctx context.Context) error {
	kv, err := openTable(ctx, c.node, "reg")
	if err != nil {
		return err
	}
	w, err := kv.WatchAll(c.ctx)
	if err != nil {
		return fmt.Errorf("cluster: watch the reg table: %w", err)
	}
	c.mu.Lock()
	c.kv = kv
	c.mu.Unlock()
	// The dealers mirror the table; a lost member makes it watch anew.
	c.wg.Go(func() { c.node.mirror(c.ctx, kv, w, c.rewatch, c.apply, nil) })
	c.node.Handle(kindCall, c.receive)
	c.node.OnGap(c.gap)
	stopMembers := c.node.Watch(c.membership)
	stopRefusals := c.node.WatchRefusals(c.refusal)
	c.stop = func() {
		stopMembers()
		stopRefusals()
	}
	return nil
}

var errNotStarted = errors.New("cluster: the fabric is not started")

// table returns the reg table, or errNotStarted.
func (c *calls) table() (jetstream.KeyValue, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kv == nil {
		return nil, errNotStarted
	}
	return c.kv, nil
}

// openTable opens bucket name, each attempt with a deadline of its own:
// a JetStream request made while the servers still elect their meta
// leader may get no answer at all, and would wait for ctx's end; one
// that JetStream not being ready explains (retryable: a server that has
// not yet applied the bucket's creation knows no such stream) is made
// again too. opts apply when the bucket is created.
func openTable(ctx context.Context, n *Node, name string, opts ...KVOption) (jetstream.KeyValue, error) {
	for {
		attempt, cancel := context.WithTimeout(ctx, openAttempt)
		kv, err := n.KV(attempt, name, opts...)
		if err == nil {
			kv, err = leaderReads(attempt, n, kv)
		}
		cancel()
		if err == nil || ctx.Err() != nil || !retryable(err) {
			return kv, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(retryPause):
		}
	}
}

// leaderReads turns the bucket's direct gets off, so that its reads go to
// the stream's leader: a direct get may be answered by a replica that has
// not applied the latest write, and an UNREGISTER that read an older
// record would find nothing to remove and leave its callee in the table.
// (Every node does it as it opens the bucket, after a Create that may
// have turned them on again.)
func leaderReads(ctx context.Context, n *Node, kv jetstream.KeyValue) (jetstream.KeyValue, error) {
	s, err := n.js.Stream(ctx, "KV_"+kv.Bucket())
	if err != nil {
		return nil, err
	}
	cfg := s.CachedInfo().Config
	if cfg.AllowDirect {
		cfg.AllowDirect = false
		if _, err := n.js.UpdateStream(ctx, cfg); err != nil {
			return nil, err
		}
	}
	return n.js.KeyValue(ctx, kv.Bucket())
}

// close stops mirroring the table.
func (c *calls) close() {
	c.stop()
	c.cancel()
	c.wg.Wait()
}

// callRealm is one realm's RPC link: router.CallFabric.
type callRealm struct {
	c    *calls
	name wamp.URI
	link *router.RealmLink
}

var _ router.CallFabric = (*callRealm)(nil)

// realm links realm name and hands its dealer the registrations the
// table holds for it.
func (c *calls) realm(name wamp.URI, link *router.RealmLink) *callRealm {
	r := &callRealm{c: c, name: name, link: link}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.realms[name] = r
	if c.fenced {
		link.Fence() // no session yet: it refuses joins
	}
	for _, rec := range c.records {
		if rec.realm == name {
			link.SetRegistration(c.mirrored(rec))
		}
	}
	return r
}

// Close unlinks the realm.
func (r *callRealm) Close() {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if r.c.realms[r.name] == r {
		delete(r.c.realms, r.name)
	}
}

// RegistrationID is a keyed hash of (cluster, realm, match, procedure) in
// the IDs' range, 1 to 2^53: the same on every node.
func (r *callRealm) RegistrationID(procedure wamp.URI, match string) wamp.ID {
	h := sha256.New()
	for _, s := range []string{"junction.cluster.registration", r.c.cluster, string(r.name), match, string(procedure)} {
		h.Write(binary.AppendUvarint(nil, uint64(len(s))))
		h.Write([]byte(s))
	}
	return wamp.ID(binary.BigEndian.Uint64(h.Sum(nil))%wamp.MaxID + 1)
}

// Send forwards a call's message to node to.
func (r *callRealm) Send(to router.Node, callee wamp.ID, m wamp.Message) error {
	body, err := appendCall(nil, callMsg{realm: r.name, callee: callee, m: m})
	if err != nil {
		return err
	}
	return r.c.node.Send(Member(to), kindCall, body)
}

// receive handles a call's message from member from (on from's
// goroutine, in the order sent).
func (c *calls) receive(from Member, body []byte) {
	msg, err := decodeCall(body)
	if err != nil {
		if ok, suppressed := c.badWire.Allow(); ok {
			c.log.Warn("cluster: malformed call message", "from", from.String(), "suppressed", suppressed)
		}
		return
	}
	if msg.m == nil {
		c.reset(from)
		return
	}
	c.mu.Lock()
	r := c.realms[msg.realm]
	c.mu.Unlock()
	if r == nil {
		if inv, ok := msg.m.(*wamp.Invocation); ok {
			e := wamp.ErrorFor(wamp.TypeCall, inv.Request, wamp.Errorf(wamp.ErrNoSuchProcedure, "no realm %q on node %s", msg.realm, c.node.Self().Name))
			body, _ := appendCall(nil, callMsg{realm: msg.realm, callee: msg.callee, m: e})
			c.node.Send(from, kindCall, body)
		}
		return
	}
	r.link.DeliverCall(router.Node(from), msg.callee, msg.m)
}

// gap ends the calls between this node and member from, some of whose
// messages were lost: which calls they touched is unknown. from is told
// to do the same (its messages to us may be lost too).
func (c *calls) gap(from Member, lost uint64) {
	c.reset(from)
	c.tell(from)
}

// reset ends the calls between this node and member m (their callers get
// ERROR wamp.error.canceled) and mirrors m's registrations again.
func (c *calls) reset(m Member) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.realms {
		r.link.DropNode(router.Node(m))
	}
	c.showMember(m)
}

// showMember hands the dealers every record listing member m again.
// c.mu must be held.
func (c *calls) showMember(m Member) {
	for _, rec := range c.records {
		if rec.lists(m) {
			c.show(rec)
		}
	}
}

// membership drops the callees of a lost member from the dealers and
// from the table, and shows them again if the member comes back (this
// node, fenced while isolated, reported every member lost; it rejoins
// with a new epoch and hears them again). While isolated, fenced or
// serving, the table is left alone: the others may well be alive, and
// it is for them to remove this node's callees. (A member's loss comes
// with the isolation it causes: the node is isolated by then. A loss
// reported before, as a node cut off loses the members one by one, is
// the cut's too: the removal it starts stops once the node is isolated,
// and the member's entries stay in the table; see dead.)
func (c *calls) membership(ev MemberEvent) {
	self := c.node.Self()
	c.mu.Lock()
	if ev.Member.Name == self.Name {
		c.fenced = !ev.Up
		links := c.links()
		c.mu.Unlock()
		c.fence(links, !ev.Up)
		if ev.Up {
			// Back from isolation: the table's watcher may have stalled
			// while this node was cut off.
			select {
			case c.rewatch <- struct{}{}:
			default:
			}
			c.wg.Go(c.reconcile)
		}
		return
	}
	if ev.Up {
		// A member heard again after its loss (the same life: it was not
		// isolated, or serves on isolated) is told to end its calls with
		// this node: their state here ended with the loss, and while it
		// was held lost, its messages were dropped (Node.liveSender),
		// CALLs and RESULTs alike, with no gap to report. Its callers get
		// ERROR wamp.error.canceled, not a wait for their deadline. It is
		// told before its callees are shown again: a call routed to them
		// reaches it after the word, and is not ended by it.
		_, lost := c.lost[ev.Member]
		c.mu.Unlock()
		if lost {
			c.tell(ev.Member)
			c.mu.Lock()
			c.back(ev.Member)
			c.mu.Unlock()
		}
		return
	}
	count, isolated := c.node.isolation()
	if isolated {
		count = -1
	}
	c.lost[ev.Member] = count
	var keys []string
	for k, rec := range c.records {
		if rec.lists(ev.Member) {
			keys = append(keys, k)
		}
	}
	for _, r := range c.realms {
		r.link.DropNode(router.Node(ev.Member))
	}
	c.mu.Unlock()
	select {
	case c.rewatch <- struct{}{}:
	default:
	}
	if !isolated {
		c.wg.Go(func() { c.clean(keys, count) })
	}
}

// links returns the links of the realms. c.mu must be held.
func (c *calls) links() []*router.RealmLink {
	out := make([]*router.RealmLink, 0, len(c.realms))
	for _, r := range c.realms {
		out = append(out, r.link)
	}
	return out
}

// fence fences the realms of links (this node is isolated and fenced:
// their clients go to the other nodes) or lets clients in again (it
// rejoined). Called with no lock held.
func (c *calls) fence(links []*router.RealmLink, on bool) {
	n := 0
	for _, l := range links {
		if on {
			n += l.Fence()
		} else {
			l.Unfence()
		}
	}
	if on {
		c.log.Error("cluster: fenced: closed the sessions of clients (GOODBYE wamp.close.system_shutdown), refusing joins until rejoined",
			"sessions", n)
	}
}

// back shows the callees of member m, reported lost before, again.
// c.mu must be held.
func (c *calls) back(m Member) {
	delete(c.lost, m)
	c.showMember(m)
}

// refusal follows another member's word on this node. A member that
// holds this node lost drops what this node sends (Node.liveSender), and
// sends it nothing: the calls between them end (their callers get ERROR
// wamp.error.canceled), and its callees are hidden from the dealers, as
// a lost member's, until it hears this node again (it then tells this
// node to end the calls between them once more: see membership). Its
// entries stay in the table: it is alive.
func (c *calls) refusal(r Refusal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !r.Refused {
		delete(c.refused, r.Member)
		c.showMember(r.Member)
		return
	}
	c.refused[r.Member] = true
	c.showMember(r.Member) // hidden before the calls end: none goes to it after
	for _, rl := range c.realms {
		rl.link.DropNode(router.Node(r.Member))
	}
}

// tell asks member m to end its calls with this node (see reset): their
// messages were lost, or their state here ended.
func (c *calls) tell(m Member) {
	body, _ := appendCall(nil, callMsg{})
	if err := c.node.Send(m, kindCall, body); err != nil {
		c.log.Warn("cluster: a member was not told to end its calls with this node", "member", m.String(), "error", err)
	}
}

// stale reports whether entries of member m are stale, hidden from the
// dealers: m was lost, or holds this node lost, or it is an earlier life
// of this node. c.mu must be held.
func (c *calls) stale(m Member) bool {
	if _, lost := c.lost[m]; lost || c.refused[m] {
		return true
	}
	return c.earlier(m)
}

// dead reports whether entries of member m may be removed from the
// table: m is an earlier life of this node, or its loss was reported
// while this node heard a majority, and this node has not been isolated
// since. A loss reported by a node cut off from the others, before or
// after it knew, says nothing of the member: the member is hidden here
// until it is heard again, and its entries are left to the majority.
// c.mu must be held.
func (c *calls) dead(m Member) bool {
	if c.earlier(m) {
		return true
	}
	at, lost := c.lost[m]
	if !lost || at < 0 {
		return false
	}
	count, isolated := c.node.isolation()
	return !isolated && count == at
}

// earlier reports whether m is an earlier life of this node.
func (c *calls) earlier(m Member) bool {
	self := c.node.Self()
	return m.Name == self.Name && m.Epoch != self.Epoch
}

// mirrored is rec as the dealers see it: its callees on other live
// nodes. c.mu must be held.
func (c *calls) mirrored(rec *record) router.Registration {
	reg := router.Registration{ID: rec.id, Procedure: rec.procedure, Match: rec.match, Policy: rec.policy}
	self := c.node.Self()
	for _, e := range rec.callees {
		if e.member != self && !c.stale(e.member) {
			reg.Callees = append(reg.Callees, router.Callee{Node: router.Node(e.member), Session: e.session,
				Order: e.order, CanCancel: e.canCancel})
		}
	}
	return reg
}

// lists reports whether m has a callee in rec.
func (rec *record) lists(m Member) bool {
	for _, e := range rec.callees {
		if e.member == m {
			return true
		}
	}
	return false
}
