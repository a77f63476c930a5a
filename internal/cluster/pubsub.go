package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
	"github.com/nats-io/nats.go/jetstream"
)

// kindEvent is a publication for a member with matching subscriptions.
const kindEvent Kind = 16

// subBucket is the table of interest: one key per (member, realm, match,
// topic) while that member has local subscribers of it. retBucket holds
// the retained events: one key per (realm, topic), the last event
// published there with retain, as an event envelope's body.
const (
	subBucket = "sub"
	retBucket = "ret"
)

// pubsub carries a router's events between the members. Each member
// writes its interest into the sub table and mirrors the others' into one
// uriindex per realm; a publication goes, after its local delivery, as one
// envelope to each member whose interest matches its topic (Node.Send:
// numbered and ordered per pair of members), and that member delivers it
// to its own subscribers, filters included.
//
// Retained events: a node that keeps a publication as its topic's
// retained event writes it into the ret table too; every node mirrors the
// table into its realms' retained events (RealmLink.Retain), in the
// table's order, so every node ends with the last one written.
//
// Locks: pubsub.retMu, then pubsub.mu, then writer.mu. Interest is called
// with the broker's lock held (broker.mu before pubsub.mu); nothing here
// calls into a router with pubsub.mu held, and only RealmLink.Retain
// (which takes the realm's retainStore.mu, a leaf) with retMu held.
type pubsub struct {
	node   *Node
	log    *slog.Logger
	kv     jetstream.KeyValue // the sub table, once started (guarded by mu)
	w      *writer
	retW   *writer         // of the ret table
	warn   lograte.Limit   // failed sends and malformed envelopes
	ctx    context.Context // ends with close
	cancel context.CancelFunc
	stop   func() // stops the membership's watch; nil before start (guarded by mu)
	// rewatch asks each table's mirror to watch anew (a member was lost);
	// guarded by mu.
	rewatch []chan struct{}
	wg      sync.WaitGroup

	// retMu guards retained, and is held while a realm is given its
	// retained events (RealmLink.Retain), so that they come in the
	// table's order.
	retMu    sync.Mutex
	retained map[wamp.URI]map[wamp.URI]retainedRecord // realm -> topic -> the last

	mu      sync.RWMutex // guards the fields below
	links   map[wamp.URI]*router.RealmLink
	remote  map[wamp.URI]*uriindex.Index[*memberSet] // the others' interest, by realm
	entries map[string]interest                      // the mirror of the table, by key
	lost    map[Member]bool                          // their records are parked
	parked  map[string]interest                      // the records of the lost members, by key
	own     map[string]interest                      // this node's records, by key
	self    Member                                   // the life of this node that own is written under
	changed chan struct{}                            // closed and replaced at every change of remote
}

// retainedRecord is a topic's retained event and its revision in the ret
// table.
type retainedRecord struct {
	rev uint64
	pub *router.Publication
}

// memberSet is the members with one subscription, each once.
type memberSet struct{ members []Member }

// newPubSub makes the PubSub part of node n's fabric; nothing reaches
// the network before start.
func newPubSub(n *Node, log *slog.Logger) *pubsub {
	ctx, cancel := context.WithCancel(context.Background())
	return &pubsub{
		node: n, log: log, w: newWriter(log, subBucket), retW: newWriter(log, retBucket),
		warn: lograte.Limit{Interval: 10 * time.Second}, cancel: cancel, ctx: ctx,
		retained: map[wamp.URI]map[wamp.URI]retainedRecord{}, links: map[wamp.URI]*router.RealmLink{},
		remote: map[wamp.URI]*uriindex.Index[*memberSet]{}, entries: map[string]interest{},
		lost: map[Member]bool{}, parked: map[string]interest{}, own: map[string]interest{},
		self: n.Self(), changed: make(chan struct{}),
	}
}

// start opens the sub and ret tables, writes what was asked of them
// meanwhile, and starts mirroring them, once the node has joined; it
// returns once their current records are in, or when ctx ends.
func (ps *pubsub) start(ctx context.Context) error {
	kv, err := ps.node.KV(ctx, subBucket)
	if err != nil {
		return err
	}
	ret, err := ps.node.KV(ctx, retBucket)
	if err != nil {
		return err
	}
	ps.mu.Lock()
	ps.kv = kv
	if self := ps.node.Self(); self != ps.self {
		ps.rejoinedLocked(self) // the epoch the node joined under
	}
	ps.mu.Unlock()
	ps.node.Handle(kindEvent, ps.onEvent)
	ps.w.start(ps.ctx, &ps.wg, kv)
	ps.retW.start(ps.ctx, &ps.wg, ret)
	if err := ps.watch(ctx, kv, ps.apply, ps.purgeEarlierLives); err != nil {
		return err
	}
	if err := ps.watch(ctx, ret, ps.applyRetained, func() {}); err != nil {
		return err
	}
	stop := ps.node.Watch(ps.onMember)
	ps.mu.Lock()
	ps.stop = stop
	ps.mu.Unlock()
	return nil
}

// watch starts mirroring table kv with apply, and waits until its
// initial values are in (then calls loaded) or ctx ends.
func (ps *pubsub) watch(ctx context.Context, kv jetstream.KeyValue, apply func(jetstream.KeyValueEntry), loaded func()) error {
	w, err := kv.WatchAll(ps.ctx)
	if err != nil {
		return err
	}
	done := make(chan struct{})
	rewatch := make(chan struct{}, 1)
	ps.mu.Lock()
	ps.rewatch = append(ps.rewatch, rewatch)
	ps.mu.Unlock()
	ps.wg.Go(func() {
		ps.node.mirror(ps.ctx, kv, w, rewatch, apply, func() {
			loaded()
			close(done)
		})
	})
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close stops the mirror and the writer; what is not written yet is
// dropped (the other members forget this node as it leaves).
func (ps *pubsub) close() {
	ps.mu.RLock()
	stop := ps.stop
	ps.mu.RUnlock()
	if stop != nil {
		stop()
	}
	ps.cancel()
	ps.wg.Wait()
}

// key is the table's key of a record: member name and epoch, then a hash
// of (realm, match, topic), so that it has a bounded length whatever the
// topic (the record itself holds them).
func key(in interest) string {
	m := in.member
	return Token(m.Name) + "." + strconv.FormatUint(m.Epoch, 16) + "." +
		hashKey(string(in.realm), in.sub.Match.String(), string(in.sub.Topic))
}

// hashKey is a hash of the strings, as one KV key token.
func hashKey(parts ...string) string {
	h := sha256.New()
	for _, s := range parts {
		h.Write(strconv.AppendInt(nil, int64(len(s)), 10))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// --- this node's interest ----------------------------------------------

// setInterest records that this node has (on) or no longer has local
// subscribers of sub in realm, and queues the write. Called with the
// realm's broker lock held: it never blocks on the table.
func (ps *pubsub) setInterest(realm wamp.URI, sub router.Subscription, on bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	in := interest{ps.self, realm, sub}
	k := key(in)
	if on {
		ps.own[k] = in
		ps.w.put(k, appendInterest(nil, in))
		return
	}
	delete(ps.own, k)
	ps.w.delete(k)
}

// unlink forgets realm: no more deliveries to it, and its records go.
func (ps *pubsub) unlink(realm wamp.URI) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	delete(ps.links, realm)
	for k, in := range ps.own {
		if in.realm == realm {
			delete(ps.own, k)
			ps.w.delete(k)
		}
	}
}

// onMember follows the membership: a lost member's interest goes at once
// (and the lowest live member deletes its records, while it hears a
// majority: an isolated node may be the one cut off); a member back under
// the same life (its lease had expired) has its records shown again
// before the next member event is handled (a reaping that follows sees
// them); this node back under a new life (after isolation) writes its
// interest again under it.
func (ps *pubsub) onMember(ev MemberEvent) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	m := ev.Member
	switch {
	case m.Name == ps.self.Name:
		if ev.Up && m.Epoch != ps.self.Epoch {
			ps.rejoinedLocked(m)
		}
	case !ev.Up:
		ps.lost[m] = true
		_, isolated := ps.node.isolation()
		ps.dropMemberLocked(m, !isolated && ps.lowestLive())
		for _, ch := range ps.rewatch { // the tables' watchers may have lived on m's server
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	case ps.lost[m]:
		delete(ps.lost, m)
		for k, in := range ps.parked {
			if in.member == m {
				delete(ps.parked, k)
				ps.addLocked(k, in)
			}
		}
	}
}

// rejoinedLocked rewrites this node's records under its new life. Lock
// ps.mu should be held.
func (ps *pubsub) rejoinedLocked(m Member) {
	ps.self = m
	for k, in := range ps.own {
		delete(ps.own, k)
		ps.w.delete(k)
		in.member = m
		nk := key(in)
		ps.own[nk] = in
		ps.w.put(nk, appendInterest(nil, in))
	}
}

// lowestLive reports whether this node has the lowest name among the live
// members: the one that cleans up after a lost member.
func (ps *pubsub) lowestLive() bool {
	ms := ps.node.Members()
	return len(ms) > 0 && !slices.ContainsFunc(ms, func(m Member) bool { return m.Name < ps.self.Name })
}

// dropMemberLocked parks m's records (out of the mirror, kept up to date
// with the table while m is lost), and deletes them from the table too
// when purge. Lock ps.mu should be held.
func (ps *pubsub) dropMemberLocked(m Member, purge bool) {
	for k, in := range ps.entries {
		if in.member != m {
			continue
		}
		ps.removeLocked(k, in)
		ps.parked[k] = in
		if purge {
			ps.w.delete(k)
		}
	}
}

// --- the mirror of the others' interest ----------------------------------

// apply applies one change of the table. A lost member's records are
// parked: a member whose records another deleted, thinking it lost,
// writes them again itself (see below), and they are shown once it is
// heard again, whatever the order of the two.
func (ps *pubsub) apply(e jetstream.KeyValueEntry) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	k := e.Key()
	if old, ok := ps.entries[k]; ok {
		ps.removeLocked(k, old)
	}
	delete(ps.parked, k)
	if e.Operation() != jetstream.KeyValuePut {
		if in, ok := ps.own[k]; ok {
			// Another member deleted it, thinking this node lost.
			ps.w.put(k, appendInterest(nil, in))
		}
		return
	}
	in, err := decodeInterest(e.Value())
	switch {
	case err != nil:
		ps.log.Warn("cluster: malformed record in the sub table", "key", k)
	case in.member == ps.self:
	case ps.lost[in.member]:
		ps.parked[k] = in
	default:
		ps.addLocked(k, in)
	}
}

// addLocked puts record k of another member into the mirror. Lock ps.mu
// should be held.
func (ps *pubsub) addLocked(k string, in interest) {
	ps.entries[k] = in
	if in.member.Name == ps.self.Name {
		return // an earlier life of this node: purged once loaded
	}
	idx := ps.remote[in.realm]
	if idx == nil {
		idx = &uriindex.Index[*memberSet]{}
		ps.remote[in.realm] = idx
	}
	set, ok := idx.Get(string(in.sub.Topic), in.sub.Match)
	if !ok {
		set = &memberSet{}
		idx.Set(string(in.sub.Topic), in.sub.Match, set)
	}
	if !slices.Contains(set.members, in.member) {
		set.members = append(set.members, in.member)
	}
	ps.changedLocked()
}

// removeLocked takes record k out of the mirror. Lock ps.mu should be
// held.
func (ps *pubsub) removeLocked(k string, in interest) {
	delete(ps.entries, k)
	idx := ps.remote[in.realm]
	if idx == nil {
		return
	}
	set, ok := idx.Get(string(in.sub.Topic), in.sub.Match)
	if !ok {
		return
	}
	set.members = slices.DeleteFunc(set.members, func(m Member) bool { return m == in.member })
	if len(set.members) == 0 {
		idx.Delete(string(in.sub.Topic), in.sub.Match)
	}
	ps.changedLocked()
}

// purgeEarlierLives deletes the records of this node's earlier lives (a
// node that died and restarted before anyone cleaned up after it).
func (ps *pubsub) purgeEarlierLives() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for k, in := range ps.entries {
		if in.member.Name == ps.self.Name {
			delete(ps.entries, k)
			ps.w.delete(k)
		}
	}
}

func (ps *pubsub) changedLocked() {
	close(ps.changed)
	ps.changed = make(chan struct{})
}

// interested appends to to the members whose interest matches topic in
// realm, each once.
func (ps *pubsub) interested(realm, topic wamp.URI, to []Member) []Member {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	idx := ps.remote[realm]
	if idx == nil {
		return to
	}
	idx.Match(string(topic), func(_ string, _ uriindex.Match, set *memberSet) bool {
		for _, m := range set.members {
			if !slices.Contains(to, m) {
				to = append(to, m)
			}
		}
		return true
	})
	return to
}

// --- envelopes ---------------------------------------------------------

// publish sends p, published in realm and delivered here, to every
// member with a matching subscription. Called on the publisher's
// goroutine, so one publisher's events leave in order.
func (ps *pubsub) publish(realm wamp.URI, p *router.Publication) {
	var buf [4]Member
	to := ps.interested(realm, p.Topic, buf[:0])
	if len(to) == 0 && !p.Retain {
		return
	}
	body, err := appendEvent(nil, remoteEvent{realm, p})
	if err != nil {
		for _, m := range to {
			ps.node.eventDropped(dropMalformed, m, "realm", string(realm), "topic", string(p.Topic), "err", err)
		}
		return
	}
	if p.Retain {
		ps.retW.put(retainedKey(realm, p.Topic), body)
	}
	for _, m := range to {
		switch err := ps.node.Send(m, kindEvent, body); {
		case errors.Is(err, ErrNotMember):
			// Lost (or left) since its interest was mirrored: the mirror
			// forgets it as the membership's event comes.
			ps.node.eventDropped(dropMemberLost, m, "realm", string(realm), "topic", string(p.Topic))
		case err != nil:
			ps.node.eventDropped(dropSendFailed, m, "realm", string(realm), "topic", string(p.Topic), "err", err)
		}
	}
}

// onEvent delivers an envelope of another member to this node's
// subscribers. The node runs it on the sender's goroutine, in the order
// sent.
func (ps *pubsub) onEvent(from Member, body []byte) {
	e, err := decodeEvent(body)
	if err != nil {
		ps.node.eventDropped(dropMalformed, from, "err", err)
		return
	}
	ps.mu.RLock()
	link := ps.links[e.realm]
	ps.mu.RUnlock()
	if link == nil {
		ps.node.eventDropped(dropNoRealm, from, "realm", string(e.realm), "topic", string(e.pub.Topic))
		return
	}
	link.Deliver(e.pub)
}

func (ps *pubsub) warnf(msg string, args ...any) {
	if ok, suppressed := ps.warn.Allow(); ok {
		ps.log.Warn(msg, append(args, "suppressed", suppressed)...)
	}
}

// realmEvents is one realm's EventFabric.
type realmEvents struct {
	ps   *pubsub
	name wamp.URI
}

var _ router.EventFabric = (*realmEvents)(nil)

// link links realm to the cluster's events.
func (ps *pubsub) link(name wamp.URI, l *router.RealmLink) *realmEvents {
	ps.retMu.Lock()
	defer ps.retMu.Unlock()
	ps.mu.Lock()
	ps.links[name] = l
	ps.mu.Unlock()
	for _, r := range ps.retained[name] {
		l.Retain(r.pub)
	}
	return &realmEvents{ps: ps, name: name}
}

func (r *realmEvents) Interest(sub router.Subscription, on bool) { r.ps.setInterest(r.name, sub, on) }
func (r *realmEvents) Published(p *router.Publication)           { r.ps.publish(r.name, p) }
func (r *realmEvents) close()                                    { r.ps.unlink(r.name) }

// retainedKey is the ret table's key of a topic's retained event: a hash
// of (realm, topic), of bounded length whatever the topic.
func retainedKey(realm, topic wamp.URI) string {
	return hashKey(string(realm), string(topic))
}

// applyRetained applies one change of the ret table: a newer retained
// event replaces its topic's on this node.
func (ps *pubsub) applyRetained(e jetstream.KeyValueEntry) {
	if e.Operation() != jetstream.KeyValuePut {
		return
	}
	ev, err := decodeEvent(e.Value())
	if err != nil {
		ps.warnf("cluster: malformed record in the ret table", "key", e.Key(), "err", err)
		return
	}
	ps.retMu.Lock()
	defer ps.retMu.Unlock()
	topics := ps.retained[ev.realm]
	if topics == nil {
		topics = map[wamp.URI]retainedRecord{}
		ps.retained[ev.realm] = topics
	}
	if topics[ev.pub.Topic].rev >= e.Revision() {
		return
	}
	topics[ev.pub.Topic] = retainedRecord{rev: e.Revision(), pub: ev.pub}
	ps.mu.Lock()
	link := ps.links[ev.realm]
	ps.changedLocked()
	ps.mu.Unlock()
	if link != nil {
		link.Retain(ev.pub)
	}
}

// Elsewhere reports whether another live member has subscribers of sub
// in the realm (router.SubscriptionsElsewhere).
func (r *realmEvents) Elsewhere(sub router.Subscription) bool {
	ps := r.ps
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	idx := ps.remote[r.name]
	if idx == nil {
		return false
	}
	set, ok := idx.Get(string(sub.Topic), sub.Match)
	return ok && len(set.members) > 0
}
