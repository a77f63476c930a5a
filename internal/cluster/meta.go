package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// Sessions across the cluster: session IDs that no two nodes draw, and
// the session meta procedures answered for every node (a scatter-gather
// on the subject <prefix>.q: the asking node publishes the query with a
// reply subject, every member answers for its sessions of the realm).
const (
	// slots is the number of session ID slots: a node holds one, slot k,
	// and draws the session IDs congruent to k modulo slots.
	slots = 4096
	// askTimeout bounds a scatter-gather: a live member that has not
	// answered by then makes the meta procedure an ERROR.
	askTimeout = 2 * time.Second
	// askRepeat is how long a scatter-gather waits before it asks the
	// members that have not answered again.
	askRepeat = 100 * time.Millisecond
)

// sessions is the part of a node's fabric that answers for the sessions
// of the cluster: the sess table (KV bucket sess: key s<k>, the name of
// the node holding session ID slot k; the testaments, will.go) and the
// queries between nodes.
type sessions struct {
	node    *Node
	log     *slog.Logger
	badWire *lograte.Limit
	slot    atomic.Int64 // this node's slot; -1 before start
	// again tells whether a failed table write is tried again (calls.again).
	again  func(context.Context, error) bool
	ctx    context.Context // ends at Leave or close: the reaping of lost members
	cancel context.CancelFunc
	stop   func() // of the membership watch
	wg     sync.WaitGroup
	reaped atomic.Uint64 // the losses and leaves of members handled (reap.go)

	// servers returns the other members with subscribers in a realm
	// (pubsub.membersIn): a lost session of a realm this node does not
	// serve is handed over to one of them (reap_handover.go).
	servers func(wamp.URI) []Member
	wills   wills // this node's sessions' testaments (will.go)
	// handovers are the lost sessions handed over (reap_handover.go).
	handovers handovers

	mu     sync.Mutex // guards the fields below; a leaf
	realms map[wamp.URI]*router.RealmLink
	sub    *nats.Subscription // of queries, once started
	will   jetstream.KeyValue // the sess table, once started
	// postponed are the reapings agreed on that this node could not
	// start (it was isolated), or that its isolation stopped, by member:
	// it does them when it hears a majority again (reap.go). A loss this
	// node saw while isolated is not agreed on yet: the members agree on
	// it (or not) once it hears a majority again (agree.go).
	postponed map[Member]reapLock
}

var _ router.SessionIDs = (*Fabric)(nil)

func newSessions(n *Node, log *slog.Logger) *sessions {
	s := &sessions{node: n, log: log, badWire: &lograte.Limit{Interval: time.Minute},
		realms: map[wamp.URI]*router.RealmLink{}, postponed: map[Member]reapLock{}, stop: func() {},
		handovers: handovers{quit: make(chan struct{})}}
	s.slot.Store(-1)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

// start opens the sess table, claims this node's slot, answers the
// other nodes' queries and reaps the members lost. again tells whether a
// failed table write is tried again.
func (s *sessions) start(ctx context.Context, again func(context.Context, error) bool) error {
	s.again = again
	kv, err := openTable(ctx, s.node, "sess")
	if err != nil {
		return err
	}
	slot, err := s.claim(ctx, kv)
	if err != nil {
		return err
	}
	s.slot.Store(int64(slot))
	sub, err := s.node.nc.Subscribe(s.node.prefix+".q", s.onQuery)
	if err != nil {
		return fmt.Errorf("cluster: session queries: %w", err)
	}
	s.mu.Lock()
	s.sub, s.will = sub, kv
	s.mu.Unlock()
	stopMembers := s.node.Watch(s.membership)
	stopAgreed := s.node.watchAgreed(s.agreed)
	s.stop = func() {
		stopAgreed()
		stopMembers()
	}
	return nil
}

func (s *sessions) close() {
	s.stop()
	s.cancel()
	s.handovers.mu.Lock()
	if !s.handovers.closed {
		s.handovers.closed = true
		close(s.handovers.quit)
	}
	s.handovers.mu.Unlock()
	s.mu.Lock()
	if s.sub != nil {
		s.sub.Unsubscribe()
		s.sub = nil
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// claim returns this node's slot: the one its name holds (a restart), or
// the first free one, or one whose holder is no live member (compare and
// set: of two nodes taking it, one wins).
func (s *sessions) claim(ctx context.Context, kv jetstream.KeyValue) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, tableTimeout)
	defer cancel()
	for {
		slot, err := s.take(ctx, kv)
		if err == nil || !s.again(ctx, err) {
			return slot, err
		}
	}
}

// take is one attempt of claim.
func (s *sessions) take(ctx context.Context, kv jetstream.KeyValue) (int, error) {
	name := s.node.Self().Name
	held := map[string]jetstream.KeyValueEntry{}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return 0, err
	}
	for k := range keys.Keys() {
		e, err := kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if string(e.Value()) == name {
			return slotOf(k), nil
		}
		held[k] = e
	}
	for k := range slots {
		if _, ok := held[slotKey(k)]; ok {
			continue
		}
		_, err := kv.Create(ctx, slotKey(k), []byte(name))
		if err == nil {
			return k, nil
		}
		if !conflict(err) {
			return 0, err
		}
	}
	return s.takeOver(ctx, kv, held)
}

// takeOver takes a slot whose holder is no live member.
func (s *sessions) takeOver(ctx context.Context, kv jetstream.KeyValue, held map[string]jetstream.KeyValueEntry) (int, error) {
	live := map[string]bool{}
	for _, m := range s.node.Members() {
		live[m.Name] = true
	}
	for k, e := range held {
		if live[string(e.Value())] {
			continue
		}
		if _, err := kv.Update(ctx, k, []byte(s.node.Self().Name), e.Revision()); err == nil {
			return slotOf(k), nil
		}
	}
	return 0, errors.New("cluster: no session ID slot is free")
}

func slotKey(k int) string { return "s" + strconv.Itoa(k) }

func slotOf(key string) int {
	k, _ := strconv.Atoi(key[1:])
	return k
}

// SessionID draws a session ID of this node's slot, uniform among them
// in [1, 2^53] (router.SessionIDs). Before the fabric started (no slot
// yet) it is any ID: no session joins before then.
func (f *Fabric) SessionID() wamp.ID {
	slot := f.sessions.slot.Load()
	if slot < 0 {
		return wamp.GlobalID()
	}
	return wamp.ID(rand.Uint64N(wamp.MaxID/slots)*slots + uint64(slot) + 1)
}

// link makes realm name answer the other nodes' queries.
func (s *sessions) link(name wamp.URI, l *router.RealmLink) *realmSessions {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.realms[name] = l
	return &realmSessions{s: s, name: name, link: l}
}

// realmSessions is a realm's part of sessions: router.MetaFabric.
type realmSessions struct {
	s    *sessions
	name wamp.URI
	link *router.RealmLink
}

// The optional parts of a realm's side of the cluster.
var (
	_ router.MetaFabric             = (*realmFabric)(nil)
	_ router.TestamentFabric        = (*realmFabric)(nil)
	_ router.SubscriptionsElsewhere = (*realmFabric)(nil)
)

func (r *realmSessions) close() {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.s.realms[r.name] == r.link {
		delete(r.s.realms, r.name)
	}
}

// onQuery answers another node's query for this node's sessions of its
// realm (none when the realm is not here). A fenced node answers
// nothing: the others count it out.
func (s *sessions) onQuery(m *nats.Msg) {
	q, err := decodeQuery(m.Data)
	if err != nil {
		if ok, suppressed := s.badWire.Allow(); ok {
			s.log.Warn("cluster: malformed session query", "err", err, "suppressed", suppressed)
		}
		return
	}
	if s.node.Fenced() {
		return
	}
	self := s.node.Self()
	if q.from == self {
		return
	}
	s.mu.Lock()
	l := s.realms[q.realm]
	s.mu.Unlock()
	var a router.MetaAnswer
	if l != nil {
		a = l.AnswerMeta(q.MetaQuery)
	}
	b, err := appendAnswer(nil, answer{member: self, MetaAnswer: a})
	if err == nil && int64(len(b)) > s.node.nc.MaxPayload() {
		// Too large for NATS (the events of a history, say): the asking
		// node answers its caller with an ERROR saying so, never with the
		// other members' answers alone.
		b, err = appendAnswer(nil, answer{member: self, tooLarge: len(b)})
	}
	if err == nil {
		err = m.Respond(b)
	}
	if err != nil {
		s.log.Error("cluster: session answer not sent", "op", int(q.Op), "err", err)
	}
}

// AskMeta asks q of every other live member (router.MetaFabric)
// and waits for each one's answer, at most askTimeout.
func (r *realmSessions) AskMeta(q router.MetaQuery) ([]router.MetaAnswer, error) {
	n := r.s.node
	if n.Fenced() {
		return nil, wamp.Errorf(wamp.ErrClusterIsolated, "this node is isolated from the cluster")
	}
	self := n.Self()
	waiting := map[Member]bool{}
	for _, m := range n.Members() {
		if m != self {
			waiting[m] = true
		}
	}
	if len(waiting) == 0 {
		return nil, nil
	}
	return r.gather(query{from: self, realm: r.name, MetaQuery: q}, waiting)
}

// gather publishes q and collects the answers of the members waiting.
func (r *realmSessions) gather(q query, waiting map[Member]bool) ([]router.MetaAnswer, error) {
	nc := r.s.node.nc
	body, err := appendQuery(nil, q)
	if err != nil {
		return nil, wamp.Errorf(wamp.ErrInvalidArgument, "%v", err)
	}
	reply := nc.NewRespInbox()
	sub, err := nc.SubscribeSync(reply)
	if err != nil {
		return nil, unanswered(err)
	}
	defer sub.Unsubscribe()
	if err := nc.PublishRequest(r.s.node.prefix+".q", reply, body); err != nil {
		return nil, unanswered(err)
	}
	deadline := time.Now().Add(askTimeout)
	var all []router.MetaAnswer
	for len(waiting) > 0 {
		// A member that started a moment ago may not have its
		// subscription known to this node's server yet: the query goes
		// again until every member answered (each answers once).
		ctx, cancel := context.WithTimeout(context.Background(), min(askRepeat, time.Until(deadline)))
		m, err := sub.NextMsgWithContext(ctx)
		cancel()
		if err != nil && time.Now().Before(deadline) {
			if err := nc.PublishRequest(r.s.node.prefix+".q", reply, body); err != nil {
				return nil, unanswered(err)
			}
			continue
		}
		if err != nil {
			return nil, unanswered(fmt.Errorf("%d members did not answer (%s first): %w", len(waiting), first(waiting), err))
		}
		a, err := decodeAnswer(m.Data)
		if err != nil || !waiting[a.member] {
			continue // a member that joined since, or bad bytes
		}
		if a.tooLarge > 0 {
			return nil, wamp.Errorf(wamp.ErrLimitExceeded, "the answer of %s (%d bytes) passes the cluster's message size (%d bytes): ask for less",
				a.member, a.tooLarge, nc.MaxPayload())
		}
		delete(waiting, a.member)
		all = append(all, a.MetaAnswer)
	}
	return all, nil
}

// first names one of the members.
func first(ms map[Member]bool) Member {
	for m := range ms {
		return m
	}
	return Member{}
}

// unanswered is the ERROR of a meta procedure that the cluster did not
// answer in full.
func unanswered(err error) error {
	return wamp.Errorf(wamp.ErrClusterUnavailable, "the cluster did not answer: %v", err)
}
