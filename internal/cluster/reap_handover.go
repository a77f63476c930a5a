package cluster

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// A reaper that does not serve a lost session's realm cannot make the
// session's meta events (its router has no such realm): it hands the
// session over to a live member that serves the realm, which publishes
// its leaving through the cluster's PubSub as a reaper would, once. A
// member serves the realm when it has subscribers in it (its interest is
// in the sub table): those are the members whose subscribers, and the
// members they publish to, are to hear the events. When no live member
// has a subscriber in the realm, nobody is to hear them, and the
// reaper deletes the session's records without publishing.

// kindLost is the kind of the message that hands a lost session over
// (the range 48-63).
const kindLost Kind = 48

// publishLost publishes ls's leaving on link, as its own node would have:
// its meta events and testaments, or its testaments alone when its
// roster record was not there.
func publishLost(link *router.RealmLink, ls *lostSession) {
	if ls.rostered {
		link.PublishLost(ls.s)
	} else {
		link.PublishTestaments(ls.s.Testaments)
	}
}

// handOver sends ls, of a realm this node does not serve, to a live
// member with subscribers in the realm (the first by name that takes
// it), or does nothing when there is none.
func (s *sessions) handOver(ls *lostSession) error {
	body, err := appendLost(nil, ls)
	if err != nil {
		return err
	}
	for _, m := range s.servers(ls.realm) {
		err := s.node.Send(m, kindLost, body)
		if !errors.Is(err, ErrNotMember) {
			return err // sent, or this node cannot send: the reaping stops
		}
	}
	return nil
}

// onLost queues a lost session another member handed over, whose
// leaving runHandovers publishes.
func (s *sessions) onLost(from Member, body []byte) {
	ls, err := decodeLost(body)
	if err != nil {
		if ok, suppressed := s.badWire.Allow(); ok {
			s.log.Warn("cluster: malformed lost session", "from", from.String(), "err", err, "suppressed", suppressed)
		}
		return
	}
	s.handovers.mu.Lock()
	defer s.handovers.mu.Unlock()
	if s.handovers.closed {
		return // this node stops
	}
	s.handovers.q = append(s.handovers.q, handover{from, ls})
	if !s.handovers.running {
		s.handovers.running = true
		s.wg.Go(s.runHandovers)
	}
}

// handovers are the lost sessions handed over to this node, in the order
// they came, and whether a goroutine publishes them.
type handovers struct {
	mu      sync.Mutex
	q       []handover
	running bool
	closed  bool          // the sessions part closed: no more
	quit    chan struct{} // closed with closed: the wait for a loss ends
}

// handover is a lost session, and the member that handed it over.
type handover struct {
	from Member
	ls   *lostSession
}

// runHandovers publishes the leaving of the lost sessions handed over,
// in order, until none is queued. It publishes each once this node holds
// the session's member lost too (at most a lease and a second after the
// sender: each member finds a loss on its own), so that what the lost
// member held is gone here as well: a subscription or a procedure another
// member still has is then told apart from the lost member's own
// (on_delete). The wait holds up no message of the sender.
func (s *sessions) runHandovers() {
	for {
		s.handovers.mu.Lock()
		if len(s.handovers.q) == 0 {
			s.handovers.running = false
			s.handovers.mu.Unlock()
			return
		}
		h := s.handovers.q[0]
		s.handovers.q = s.handovers.q[1:]
		s.handovers.mu.Unlock()
		s.node.awaitLost(h.ls.member, s.node.cfg.Lease+time.Second, s.handovers.quit)
		link := s.realm(h.ls.realm)
		if link == nil { // its realm closed here since
			s.log.Warn("cluster: a lost session handed over for a realm this node does not serve: its leaving is not published",
				"from", h.from.String(), "realm", string(h.ls.realm), "session", uint64(h.ls.s.ID))
			continue
		}
		publishLost(link, h.ls)
	}
}

// membersIn returns the other members with subscribers in realm (their
// interest in the sub table), by name.
func (ps *pubsub) membersIn(realm wamp.URI) []Member {
	ps.mu.RLock()
	var out []Member
	for _, in := range ps.entries {
		if in.realm == realm && in.member != ps.self && !ps.lost[in.member] && !slices.Contains(out, in.member) {
			out = append(out, in.member)
		}
	}
	ps.mu.RUnlock()
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// The wire format of a lost session handed over, versioned by its first
// byte:
//
//	1 | rostered (0 or 1) | member | authid | authrole | count | subscriptions | count | registrations | will
//
// each subscription or registration: id | uri | match | last (0 or 1);
// will: the session's realm, ID and testaments as the table keeps them
// (will.go).
func appendLost(b []byte, ls *lostSession) ([]byte, error) {
	b = appendMember(append(b, wireVersion, flag(ls.rostered)), ls.member)
	b = appendString(b, ls.s.AuthID)
	b = appendString(b, ls.s.AuthRole)
	for _, l := range [][]router.RosterItem{ls.s.Subscriptions, ls.s.Registrations} {
		b = binary.AppendUvarint(b, uint64(len(l)))
		for _, it := range l {
			b = binary.AppendUvarint(b, uint64(it.ID))
			b = appendString(b, string(it.URI))
			b = appendString(b, it.Match)
			b = append(b, flag(it.Last))
		}
	}
	return appendWill(b, will{realm: ls.realm, session: ls.s.ID, ts: ls.s.Testaments})
}

// decodeLost decodes b, which it does not retain.
func decodeLost(b []byte) (*lostSession, error) {
	r := wireReader{b: b}
	if r.byte() != wireVersion {
		return nil, errWire
	}
	ls := &lostSession{rostered: r.flag(), member: r.member()}
	ls.s.AuthID, ls.s.AuthRole = r.string(), r.string()
	ls.s.Subscriptions, ls.s.Registrations = r.lostItems(), r.lostItems()
	if r.err != nil {
		return nil, errWire
	}
	w, err := decodeWill(r.b)
	if err != nil {
		return nil, err
	}
	ls.realm, ls.s.ID, ls.s.Testaments = w.realm, w.session, w.ts
	return ls, nil
}

func (r *wireReader) lostItems() []router.RosterItem {
	n := r.count()
	if n == 0 {
		return nil
	}
	l := make([]router.RosterItem, 0, n)
	for range n {
		l = append(l, router.RosterItem{ID: r.id(), URI: wamp.URI(r.string()), Match: r.string(), Last: r.flag()})
	}
	return l
}

func flag(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// flag reads a byte that must be 0 or 1.
func (r *wireReader) flag() bool {
	c := r.byte()
	if c > 1 {
		r.fail()
	}
	return c == 1
}
