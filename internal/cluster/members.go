package cluster

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// MemberEvent is a change of the membership: a member joined (Up) or was
// lost (its lease expired, it left cleanly, or this node is isolated and
// reports itself and, fencing, every other member lost). This node's own
// Up comes first in a Watch, and again when it is no longer isolated
// (fencing, with a new epoch; serving, with the same).
type MemberEvent struct {
	Member Member
	Up     bool
	// Left: the member said goodbye (a clean stop), rather than being
	// lost; what its sessions held it ended itself.
	Left bool
}

// Refusal is another member's word on this node, from its heartbeats:
// it holds this node lost (Refused), not hearing it (a cut in one
// direction, or this node's heartbeats late past its lease), and drops
// what this node sends; or it hears this node again.
type Refusal struct {
	Member  Member
	Refused bool
}

// peer is what the node knows of another member. Guarded by Node.mu.
type peer struct {
	member  Member
	heard   time.Time // its last heartbeat (or message)
	up      bool
	left    bool      // it said goodbye: no longer one of the members this node knows
	hash    string    // its config hash, once it differed from ours
	refused bool      // its last heartbeat listed this node among the members it holds lost
	hears   []Member  // the members its last heartbeat said it hears (agree.go)
	said    time.Time // when its last heartbeat came
	first   time.Time // when this node first heard this life of it
	agreed  bool      // lost, and its loss agreed on and announced (agree.go)
}

// watcher is one Watch (f), WatchRefusals (r) or watchAgreed (a)
// callback.
type watcher struct {
	f       func(MemberEvent)
	r       func(Refusal)
	a       func(Member)
	stopped atomic.Bool
}

// watchKind tells a watcher's callback.
type watchKind int

const (
	watchMembers watchKind = iota
	watchRefusals
	watchAgreed
)

func (w *watcher) kind() watchKind {
	switch {
	case w.r != nil:
		return watchRefusals
	case w.a != nil:
		return watchAgreed
	}
	return watchMembers
}

// event is one delivery queued for the events goroutine: ev, the
// refusal ref, or the agreed loss of member agreed, to watchers.
type event struct {
	ev       MemberEvent
	ref      *Refusal
	agreed   *Member
	watchers []*watcher
	then     func() // afterEvents's
}

// Members returns the live members, this node first, then by name (a
// fenced node has none, itself included).
func (n *Node) Members() []Member {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.membersLocked()
}

// membersLocked is Members. Lock n.mu should be held.
func (n *Node) membersLocked() []Member {
	var out []Member
	for _, p := range n.peers {
		if p.up {
			out = append(out, p.member)
		}
	}
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })
	if n.fencedLocked() {
		return out
	}
	return append([]Member{n.self}, out...)
}

// Watch calls f with every change of the membership, in order, on one
// goroutine, starting with a join of every live member (this node
// first). f must not block for long: it holds up the other watchers.
// After stop returns, f is not called again (unless from f itself).
func (n *Node) Watch(f func(MemberEvent)) (stop func()) {
	w := &watcher{f: f}
	n.mu.Lock()
	for _, m := range n.membersLocked() {
		n.events = append(n.events, event{ev: MemberEvent{Member: m, Up: true}, watchers: []*watcher{w}})
	}
	return n.addWatcherLocked(w)
}

// WatchRefusals calls f with every change of the other members' word on
// this node (Refusal), in order with the membership's events, on their
// goroutine, starting with the members that refuse it now. f must not
// block for long. After stop returns, f is not called again.
func (n *Node) WatchRefusals(f func(Refusal)) (stop func()) {
	w := &watcher{r: f}
	n.mu.Lock()
	for _, p := range n.peers {
		if p.refused {
			n.events = append(n.events, event{ref: &Refusal{Member: p.member, Refused: true}, watchers: []*watcher{w}})
		}
	}
	return n.addWatcherLocked(w)
}

// addWatcherLocked adds w and returns its stop. Lock n.mu should be held;
// it is released.
func (n *Node) addWatcherLocked(w *watcher) (stop func()) {
	n.watchers = append(n.watchers, w)
	n.signalLocked()
	n.mu.Unlock()
	return func() {
		w.stopped.Store(true)
		n.mu.Lock()
		defer n.mu.Unlock()
		n.watchers = slices.DeleteFunc(n.watchers, func(x *watcher) bool { return x == w })
	}
}

// emitLocked queues ev for every watcher. Lock n.mu should be held.
func (n *Node) emitLocked(ev MemberEvent) {
	switch {
	case ev.Up:
		n.log.Info("cluster: member up", "member", ev.Member.String())
	case ev.Left:
		n.log.Info("cluster: member left", "member", ev.Member.String())
	default:
		n.log.Warn("cluster: member lost", "member", ev.Member.String())
	}
	n.events = append(n.events, event{ev: ev, watchers: n.watchersLocked(watchMembers)})
	n.signalLocked()
	if !ev.Left {
		// The others learn at once what this node hears now (agree.go):
		// a member lost is reaped once the members agree. (A goodbye is
		// not hurried: the members that heard it delete what the member
		// left before one that did not hear it agrees on its loss.)
		n.beatSoonLocked()
	}
}

// beatSoonLocked has the heartbeats' goroutine send one now. Lock n.mu
// should be held.
func (n *Node) beatSoonLocked() {
	select {
	case n.beatNow <- struct{}{}:
	default:
	}
}

// refusedLocked records p's word on this node, from its last heartbeat,
// and queues a change of it for the refusal watchers. Lock n.mu should be
// held.
func (n *Node) refusedLocked(p *peer, refused bool) {
	if p.refused == refused {
		return
	}
	p.refused = refused
	if refused {
		n.log.Warn("cluster: a member holds this node lost (it does not hear it): calls with it end, and none goes to it until it hears this node again",
			"member", p.member.String())
	} else {
		n.log.Info("cluster: a member hears this node again", "member", p.member.String())
	}
	n.events = append(n.events, event{ref: &Refusal{Member: p.member, Refused: refused}, watchers: n.watchersLocked(watchRefusals)})
	n.signalLocked()
}

// watchersLocked returns the watchers of kind k. Lock n.mu should be
// held.
func (n *Node) watchersLocked(k watchKind) []*watcher {
	var out []*watcher
	for _, w := range n.watchers {
		if w.kind() == k {
			out = append(out, w)
		}
	}
	return out
}

// signalLocked wakes the events goroutine. Lock n.mu should be held.
func (n *Node) signalLocked() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// awaitLost returns once this node holds member m lost (at once when it
// does already), or after max, or once quit is closed or the node stops.
// The parts that follow the membership have handled the loss by then:
// they watch it before awaitLost's watcher.
func (n *Node) awaitLost(m Member, max time.Duration, quit <-chan struct{}) {
	lost := make(chan struct{})
	var once sync.Once
	stop := n.Watch(func(ev MemberEvent) {
		if ev.Member == m && !ev.Up {
			once.Do(func() { close(lost) })
		}
	})
	defer stop()
	n.mu.Lock()
	p := n.peers[m.Name]
	live := p != nil && p.member == m && p.up
	n.mu.Unlock()
	if !live {
		return
	}
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-lost:
	case <-t.C:
	case <-quit:
	case <-n.done:
	}
}

// afterEvents calls f on the goroutine of the membership's events once
// the events queued before it are delivered: a watcher that must see what
// the others make of the events that follow the one it handles (a
// rejoin's members up after this node's own) defers its work with it.
func (n *Node) afterEvents(f func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.events = append(n.events, event{then: f})
	n.signalLocked()
}

// runEvents delivers the queued events, holding no lock.
func (n *Node) runEvents() {
	defer n.wg.Done()
	for {
		select {
		case <-n.done:
			return
		case <-n.wake:
		}
		for {
			n.mu.Lock()
			if len(n.events) == 0 {
				n.events = nil
				n.mu.Unlock()
				break
			}
			e := n.events[0]
			n.events = n.events[1:]
			n.mu.Unlock()
			if e.then != nil {
				e.then()
			}
			for _, w := range e.watchers {
				switch {
				case w.stopped.Load():
				case e.ref != nil:
					w.r(*e.ref)
				case e.agreed != nil:
					w.a(*e.agreed)
				default:
					w.f(e.ev)
				}
			}
		}
	}
}

// runHeartbeats sends a heartbeat every interval and expires the members
// whose lease ran out.
func (n *Node) runHeartbeats() {
	defer n.wg.Done()
	n.publishHeartbeat(0)
	beat := time.NewTicker(n.cfg.Heartbeat)
	defer beat.Stop()
	check := time.NewTicker(min(n.cfg.Heartbeat, n.cfg.Lease/10))
	defer check.Stop()
	for {
		select {
		case <-n.done:
			return
		case <-beat.C:
			n.publishHeartbeat(0)
		case <-n.beatNow:
			n.publishHeartbeat(0)
		case now := <-check.C:
			n.expire(now)
		}
	}
}

// publishHeartbeat announces this member (with flags), the members it
// holds lost and those it hears (a fenced node's flag says it holds every
// one lost).
func (n *Node) publishHeartbeat(flags byte) {
	n.mu.Lock()
	h := heartbeat{flags: flags, member: n.self, hash: n.cfg.ConfigHash}
	if n.fencedLocked() {
		h.flags |= hbIsolated
	} else if flags&hbLeave == 0 {
		h.lost, h.heard = n.heldLostLocked(), n.hearsLocked()
	}
	n.mu.Unlock()
	if err := n.nc.Publish(n.prefix+".hb", appendHeartbeat(nil, h)); err != nil {
		n.log.Warn("cluster: heartbeat", "error", err)
	}
}

// heldLostLocked returns the members this node holds lost: known (not
// left) and not live. Lock n.mu should be held.
func (n *Node) heldLostLocked() []Member {
	var out []Member
	for _, p := range n.peers {
		if !p.up && !p.left {
			out = append(out, p.member)
		}
	}
	return out
}

// hearsLocked returns the other members this node hears (live). Lock n.mu
// should be held.
func (n *Node) hearsLocked() []Member {
	var out []Member
	for _, p := range n.peers {
		if p.up {
			out = append(out, p.member)
		}
	}
	return out
}

// expire reports lost the members not heard for a lease, then checks
// whether this node is isolated, or no longer, then which losses the
// members it hears agree on.
func (n *Node) expire(now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, p := range n.peers {
		if p.up && now.Sub(p.heard) > n.cfg.Lease {
			p.up = false
			n.emitLocked(MemberEvent{Member: p.member, Up: false})
		}
	}
	known, heard := 1, 1 // this node
	for _, p := range n.peers {
		if !p.left {
			known++
			if now.Sub(p.heard) <= n.cfg.Lease {
				heard++
			}
		}
	}
	switch majority := known/2 + 1; {
	case !n.isolated && heard < majority:
		n.isolateLocked(heard, known)
	case n.isolated && heard >= majority:
		n.rejoinLocked(now)
	}
	n.agreeLocked(now)
}

// isolateLocked isolates this node: it hears heard of the known members
// (itself included), fewer than a majority. Fencing, it reports itself
// and every other member lost. Lock n.mu should be held.
func (n *Node) isolateLocked(heard, known int) {
	n.isolated = true
	n.isolations++
	close(n.holding)
	if n.cfg.OnIsolation == Serve {
		n.log.Error("cluster: isolated: hearing fewer than a majority of the members; serving on (on_isolation serve)",
			"heard", heard, "known", known)
		return
	}
	n.log.Error("cluster: isolated: hearing fewer than a majority of the members; fenced until it hears a majority again",
		"heard", heard, "known", known)
	n.emitLocked(MemberEvent{Member: n.self, Up: false})
	for _, p := range n.peers {
		if p.up {
			p.up = false
			n.emitLocked(MemberEvent{Member: p.member, Up: false})
		}
	}
}

// rejoinLocked ends the isolation: a fenced node rejoins with a new
// epoch, so that nothing of its earlier life is taken for its own. Lock
// n.mu should be held.
func (n *Node) rejoinLocked(now time.Time) {
	n.isolated = false
	n.holding = make(chan struct{})
	if n.cfg.OnIsolation == Serve {
		n.log.Warn("cluster: no longer isolated")
		n.emitLocked(MemberEvent{Member: n.self, Up: true}) // the parts check what they hold against the tables
		return
	}
	n.self.Epoch = newEpoch()
	n.log.Warn("cluster: no longer isolated: rejoined", "member", n.self.String())
	n.emitLocked(MemberEvent{Member: n.self, Up: true})
	for _, p := range n.peers {
		if !p.left && now.Sub(p.heard) <= n.cfg.Lease {
			p.up, p.agreed = true, false
			n.emitLocked(MemberEvent{Member: p.member, Up: true})
		}
	}
}

// isolation returns how many times this node was isolated, and whether
// it is now. What the node concluded of the other members while it heard
// a majority holds as long as the count stays the same and it is not
// isolated: a node cut off loses the members one by one, some before it
// finds itself isolated.
func (n *Node) isolation() (count int, isolated bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.isolations, n.isolated
}

// majority returns a context of ctx that ends when this node is next
// isolated, and false, with a context already ended, when it is isolated
// now: what the node does for the cluster only while it hears a majority
// (reaping a lost member) stops there. cancel releases it.
func (n *Node) majority(ctx context.Context) (_ context.Context, cancel context.CancelFunc, ok bool) {
	n.mu.Lock()
	isolated, holding := n.isolated, n.holding
	n.mu.Unlock()
	ctx, cancel = context.WithCancel(ctx)
	if isolated {
		cancel()
		return ctx, cancel, false
	}
	go func() {
		select {
		case <-holding:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel, true
}

// fencedLocked reports whether this node is isolated and fenced. Lock
// n.mu should be held.
func (n *Node) fencedLocked() bool { return n.isolated && n.cfg.OnIsolation == Fence }

// onHeartbeat records another member's heartbeat.
func (n *Node) onHeartbeat(m *nats.Msg) {
	h, err := decodeHeartbeat(m.Data)
	if err != nil {
		n.log.Warn("cluster: malformed heartbeat", "subject", m.Subject)
		return
	}
	if h.flags&hbLeave != 0 && n.sentHere(h.member) {
		return // its goodbye comes in the inbox, after its messages (sayGoodbye)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.deaf[h.member.Name] {
		return // a test's cut in one direction (Deafen)
	}
	if h.member.Name == n.self.Name {
		if h.member.Epoch != n.self.Epoch {
			n.log.Error("cluster: another live node has this node's name", "other", h.member.String())
		}
		return
	}
	switch p := n.peers[h.member.Name]; {
	case h.flags&hbLeave != 0:
		n.leftLocked(h.member)
		return
	case p != nil && p.member == h.member && p.left:
		// Sent before its goodbye, which came first on another subject
		// (the inbox): that life is over.
		return
	case h.flags&hbIsolated != 0:
		n.lostLocked(h.member) // it rejoins with a new epoch
		n.overLocked(h.member)
		return
	}
	now := time.Now()
	p := n.heardLocked(h.member, now)
	n.checkHashLocked(p, h.hash)
	n.refusedLocked(p, h.lists(n.self))
	p.hears, p.said = h.heard, now
	n.agreeLocked(now)
}

// heardLocked records that member is alive at now, a join when it was not
// live (a new epoch of a name replaces the old one, lost). While this
// node is fenced, it only notes when it heard the member. Lock n.mu
// should be held.
func (n *Node) heardLocked(member Member, now time.Time) *peer {
	p := n.peers[member.Name]
	if p == nil {
		p = &peer{member: member}
		n.peers[member.Name] = p
	}
	if p.member.Epoch != member.Epoch {
		n.lostLocked(p.member)
		n.overLocked(p.member)
		n.refusedLocked(p, false) // its earlier life's word
		*p = peer{member: member}
	}
	if p.first.IsZero() {
		p.first = now
	}
	p.heard, p.left = now, false
	if !p.up && !n.fencedLocked() {
		p.up, p.agreed = true, false
		n.emitLocked(MemberEvent{Member: member, Up: true})
	}
	return p
}

// leftLocked records that member left cleanly: it is no longer one of
// the members this node knows. Lock n.mu should be held.
func (n *Node) leftLocked(member Member) {
	if p := n.peers[member.Name]; p != nil && p.member == member {
		if p.up {
			p.up = false
			n.emitLocked(MemberEvent{Member: member, Left: true})
		}
		p.left = true
	}
}

// lostLocked reports member lost if it was live. Lock n.mu should be
// held.
func (n *Node) lostLocked(member Member) {
	if p := n.peers[member.Name]; p != nil && p.member == member && p.up {
		p.up = false
		n.emitLocked(MemberEvent{Member: member, Up: false})
	}
}

// checkHashLocked warns once when a member's config hash differs from
// this node's. Lock n.mu should be held.
func (n *Node) checkHashLocked(p *peer, hash string) {
	if hash == n.cfg.ConfigHash || hash == p.hash {
		return
	}
	p.hash = hash
	n.log.Warn("cluster: a member's realm, role or auth config differs from this node's",
		"member", p.member.String(), "hash", hash, "own", n.cfg.ConfigHash)
}
