package cluster

import (
	"errors"
	"time"

	"github.com/nats-io/nats.go"
)

// senderQueue is how many messages of one sender wait for its handler
// goroutine; a full queue holds up the node's inbox subscription, whose
// own pending limit then drops messages (counted as gaps by the next
// message's sequence number).
const senderQueue = 1024

// outState is the sequence of the messages to one member: one sequence
// per pair of lives, the member's epoch and this node's (a rejoin after
// isolation starts new ones). Guarded by Node.sendMu.
type outState struct {
	epoch   uint64 // the member's
	from    uint64 // this node's
	seq     uint64
	subject string
}

// sender is the inbox's state of one sending member: its last sequence
// number to this node's current life (to) and the goroutine that runs its
// handlers. Guarded by Node.recvMu.
type sender struct {
	member Member
	to     uint64 // this node's epoch the sequence is addressed to
	last   uint64
	queue  chan delivery
}

// delivery is one message for a sender's goroutine, with the count of
// messages lost just before it.
type delivery struct {
	kind Kind
	body []byte
	lost uint64
}

// Send puts body into member to's inbox, as a message of kind k. The
// messages from this node to one member arrive in the order sent, each
// with the next number of the pair's sequence: the receiver counts, logs
// and reports (OnGap) the messages lost. Send fails at once when to is not
// a live member; it never sends to this node itself.
func (n *Node) Send(to Member, k Kind, body []byte) error {
	if k == kindLeave {
		return errKindReserved
	}
	if err := n.checkTarget(to); err != nil {
		return err
	}
	n.sendMu.Lock()
	defer n.sendMu.Unlock()
	self := n.Self()
	o := n.outLocked(self, to)
	o.seq++
	n.sendBuf = appendEnvelope(n.sendBuf[:0], envelope{kind: k, from: self, toEpoch: to.Epoch, seq: o.seq, body: body})
	if err := n.nc.Publish(o.subject, n.sendBuf); err != nil {
		return err
	}
	n.counts.sent.Add(1)
	return nil
}

// outLocked returns the sequence of the messages from self, this node's
// current life, to member to (a new one for a new epoch of either). Lock
// n.sendMu should be held.
func (n *Node) outLocked(self, to Member) *outState {
	o := n.out[to.Name]
	if o == nil || o.epoch != to.Epoch || o.from != self.Epoch {
		o = &outState{epoch: to.Epoch, from: self.Epoch, subject: n.inboxSubject(to.Name)}
		n.out[to.Name] = o
	}
	return o
}

// checkTarget returns why this node cannot send to member to, if it
// cannot.
func (n *Node) checkTarget(to Member) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	select {
	case <-n.done:
		return ErrClosed
	default:
	}
	if n.isolated && n.cfg.OnIsolation == Fence {
		return ErrIsolated
	}
	if p := n.peers[to.Name]; p == nil || !p.up || p.member != to {
		return ErrNotMember
	}
	return nil
}

// Handle sets the handler of the messages of kind k (before they come).
// The handlers of one sending member's messages run one at a time, in the
// order sent, on a goroutine of that member; body is the handler's to
// keep.
func (n *Node) Handle(k Kind, h func(from Member, body []byte)) {
	n.handlers[k].Store(&h)
}

// OnGap adds a handler of lost messages: lost messages from member from
// were missing before the next one, which is handled after f returns (on
// the same goroutine).
func (n *Node) OnGap(f func(from Member, lost uint64)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.onGap = append(n.onGap, f)
}

// onEnvelope receives one message of the node's inbox: it checks the
// sequence and queues the message for its sender's goroutine.
func (n *Node) onEnvelope(m *nats.Msg) {
	e, err := decodeEnvelope(m.Data)
	if err != nil {
		n.counts.dropped.Add(1)
		n.log.Warn("cluster: malformed message in the inbox")
		return
	}
	self := n.Self()
	if e.toEpoch != self.Epoch {
		n.counts.dropped.Add(1) // for an earlier life of this node
		return
	}
	n.counts.received.Add(1)
	s, lost, ok := n.sequence(e)
	if !ok {
		return
	}
	if e.kind == kindLeave { // after what it sent: those are queued
		n.mu.Lock()
		n.leftLocked(e.from)
		n.mu.Unlock()
		return
	}
	if !n.liveSender(e.from) {
		n.counts.dropped.Add(1)
		if e.kind == kindEvent {
			n.eventDropped(dropMemberLost, e.from)
		}
		return
	}
	select {
	case s.queue <- delivery{kind: e.kind, body: e.body, lost: lost}:
	case <-n.done:
	}
}

// kindLeave is the node's own kind, 0, that Send refuses: a member's
// goodbye, the last message of its sequence to this node (sayGoodbye).
const kindLeave Kind = 0

// errKindReserved is Send's error for kind 0, the node's own.
var errKindReserved = errors.New("cluster: message kind 0 is reserved")

// sayGoodbye puts a goodbye into the inbox of every member this node
// knows that has not left, after everything it sent them: the goodbye in
// the heartbeats travels on a subscription of its own, and could be
// handled before the messages still in a member's inbox, which would
// then be dropped (those of a member that left), as the meta events of
// the sessions that left as this node stopped.
func (n *Node) sayGoodbye() {
	n.mu.Lock()
	self := n.self
	var to []Member
	for _, p := range n.peers {
		if !p.left {
			to = append(to, p.member)
		}
	}
	n.mu.Unlock()
	n.sendMu.Lock()
	defer n.sendMu.Unlock()
	for _, m := range to {
		o := n.outLocked(self, m)
		o.seq++
		n.sendBuf = appendEnvelope(n.sendBuf[:0], envelope{kind: kindLeave, from: self, toEpoch: m.Epoch, seq: o.seq})
		if err := n.nc.Publish(o.subject, n.sendBuf); err != nil {
			n.log.Warn("cluster: goodbye", "member", m.String(), "error", err)
		}
	}
}

// sentHere reports whether member has sent this life of the node a
// message: its goodbye then comes in the inbox, after those messages,
// and the heartbeat's is not heeded (onHeartbeat).
func (n *Node) sentHere(member Member) bool {
	self := n.Self()
	n.recvMu.Lock()
	defer n.recvMu.Unlock()
	s := n.in[member.Name]
	return s != nil && s.member == member && s.to == self.Epoch
}

// sequence checks e's number against its sender's and returns the
// sender, the count of messages lost before e, and false when e must be
// dropped (a number already seen, or the node closed).
func (n *Node) sequence(e envelope) (*sender, uint64, bool) {
	n.recvMu.Lock()
	defer n.recvMu.Unlock()
	if n.closed {
		return nil, 0, false
	}
	s := n.in[e.from.Name]
	if s == nil || s.member != e.from || s.to != e.toEpoch {
		if s != nil {
			close(s.queue) // the earlier lives' goroutine ends after its queue
		}
		s = &sender{member: e.from, to: e.toEpoch, queue: make(chan delivery, senderQueue)}
		n.in[e.from.Name] = s
		n.wg.Add(1)
		go n.runSender(s)
	}
	if e.seq <= s.last {
		n.counts.dropped.Add(1)
		n.log.Error("cluster: message out of sequence", "from", e.from.String(), "seq", e.seq, "last", s.last)
		return nil, 0, false
	}
	lost := e.seq - s.last - 1
	s.last = e.seq
	if lost > 0 {
		n.counts.gaps.Add(1)
		n.counts.lost.Add(lost)
		n.log.Error("cluster: messages lost", "from", e.from.String(), "lost", lost, "before", e.seq)
	}
	return s, lost, true
}

// liveSender reports whether messages from member are delivered: it is a
// live member, or one not known yet (its message came before its first
// heartbeat: that is a join, unless this node is fenced). A member
// reported lost stays lost until a heartbeat of it; its messages
// meanwhile are dropped and counted, and the calls, heard again, tell it
// to end its calls with this node (calls.membership).
func (n *Node) liveSender(member Member) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.peers[member.Name]
	if p != nil && p.member == member {
		return p.up
	}
	return n.heardLocked(member, time.Now()).up
}

// runSender runs the handlers of one sender's messages, in order.
func (n *Node) runSender(s *sender) {
	defer n.wg.Done()
	for {
		select {
		case <-n.done:
			return
		case d, ok := <-s.queue:
			if !ok {
				return
			}
			n.deliver(s.member, d)
		}
	}
}

// deliver reports d's gap, if any, and calls the handler of its kind.
func (n *Node) deliver(from Member, d delivery) {
	if d.lost > 0 {
		n.mu.Lock()
		gap := n.onGap
		n.mu.Unlock()
		for _, f := range gap {
			f(from, d.lost)
		}
	}
	h := n.handlers[d.kind].Load()
	if h == nil {
		n.counts.dropped.Add(1)
		n.log.Warn("cluster: no handler for a message", "kind", d.kind, "from", from.String())
		return
	}
	(*h)(from, d.body)
}
