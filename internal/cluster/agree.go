package cluster

import (
	"slices"
	"time"
)

// Agreeing on a loss. A member lost to one node is not lost to the
// cluster: a cut in one direction (this node no longer hears it, the
// others do), a node starved of CPU that misses heartbeats, or a flap,
// loses a live member to one node alone. What this node does alone on a
// loss stays local: its calls with the member end, and the member is
// hidden from its dealers. Reaping the member (publishing its sessions'
// leaving and testaments, deleting their records: reap.go) is done for
// the cluster, and a testament published for a session that lives is a
// false alarm; so it waits until the members agree.
//
// The rule: a loss is agreed once this node hears a majority (it is not
// isolated), and no member it hears still hears the lost one, per the
// heartbeats (each lists the members its sender hears): "every member
// this node hears holds it lost" rather than "a majority holds it lost",
// since a member that still hears the lost one is the proof that it
// lives. A member this node has heard for less than a lease has not had
// the time to hear the lost one (it may have just started): the
// agreement waits for it. A member that dies is lost by all within a
// heartbeat check of each other (they heard its last heartbeat at the
// same moment), and each sends a heartbeat at once on a loss: the
// agreement comes a few milliseconds after the last of them loses it.
//
// Without a word from the others: an earlier life of a member whose new
// life is heard (a restart, a fenced node's rejoin), and a member that
// says it is fenced, are over by their own word, agreed at once, even
// while this node is isolated (the reaping then waits for a majority,
// reap.go). A member that leaves cleanly needs no agreement either
// (MemberEvent.Left). In a cluster of two, a node that loses the other
// is isolated: it agrees on nothing until it hears it again (or its new
// life), as it reaps nothing while isolated anyway.

// watchAgreed calls f with every member whose loss this node and the
// members it hears agree on, on the goroutine of the membership's
// events, in order with them, starting with the members lost and agreed
// now. f must not block for long. After stop returns, f is not called
// again.
func (n *Node) watchAgreed(f func(Member)) (stop func()) {
	w := &watcher{a: f}
	n.mu.Lock()
	for _, p := range n.peers {
		if p.agreed && !p.up && !p.left {
			m := p.member
			n.events = append(n.events, event{agreed: &m, watchers: []*watcher{w}})
		}
	}
	return n.addWatcherLocked(w)
}

// agreeLocked announces the losses the members agree on, while this node
// hears a majority. Lock n.mu should be held.
func (n *Node) agreeLocked(now time.Time) {
	if n.isolated {
		return
	}
	for _, p := range n.peers {
		if !p.up && !p.left && !p.agreed && n.agreedLocked(p.member, now) {
			n.announceLocked(p)
		}
	}
}

// agreedLocked reports whether no member this node hears still hears m,
// each heard for a lease at least. Lock n.mu should be held.
func (n *Node) agreedLocked(m Member, now time.Time) bool {
	for _, q := range n.peers {
		if q.up && (now.Sub(q.first) < n.cfg.Lease || slices.Contains(q.hears, m)) {
			return false
		}
	}
	return true
}

// overLocked announces the loss of member m, lost, as agreed: its life is
// over by its own word (a new life heard, or it says it is fenced). Lock
// n.mu should be held.
func (n *Node) overLocked(m Member) {
	if p := n.peers[m.Name]; p != nil && p.member == m && !p.up && !p.left && !p.agreed {
		n.announceLocked(p)
	}
}

// announceLocked queues the agreed loss of p for the watchers. Lock n.mu
// should be held.
func (n *Node) announceLocked(p *peer) {
	p.agreed = true
	n.log.Info("cluster: the members agree a member is lost", "member", p.member.String())
	m := p.member
	n.events = append(n.events, event{agreed: &m, watchers: n.watchersLocked(watchAgreed)})
	n.signalLocked()
}
