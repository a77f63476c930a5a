package cluster

import (
	"slices"
	"strings"
	"time"
)

// Status is what the node knows of its cluster, for the operator
// (readiness, metrics, the dashboard).
type Status struct {
	Self     Member
	Joined   bool
	Isolated bool // hearing fewer than a majority of the members it knows
	Fenced   bool // isolated, and not serving (on_isolation fence)
	// Isolations counts the times the node was isolated.
	Isolations int
	// NATS is the state of the node's NATS connection: "connected",
	// "reconnecting", "closed" (or "not joined").
	NATS string
	// Routes counts the other nodes' servers the embedded server has a
	// route to (0 with external NATS).
	Routes int
	// Peers are the other members this node knows, live or lost, by name.
	Peers []PeerStatus
	Stats
}

// PeerStatus is another member as this node sees it.
type PeerStatus struct {
	Member Member
	Up     bool
	Left   bool          // it left cleanly
	Heard  time.Duration // since its last heartbeat (or message)
	// Refuses: its last heartbeat held this node lost while this node
	// hears it (a one-way cut): the calls between the two end, and its
	// callees are not shown here until it hears this node again.
	Refuses bool
}

// Status returns what the node knows of its cluster now.
func (n *Node) Status() Status {
	s := Status{Stats: n.Stats(), NATS: "not joined"}
	select {
	case <-n.joined:
		s.Joined = true
		s.NATS = strings.ToLower(n.nc.Status().String())
		if n.emb != nil {
			s.Routes = n.emb.remotes()
		}
	default:
	}
	now := time.Now()
	n.mu.Lock()
	s.Self, s.Isolated, s.Fenced, s.Isolations = n.self, n.isolated, n.fencedLocked(), n.isolations
	for _, p := range n.peers {
		s.Peers = append(s.Peers, PeerStatus{Member: p.member, Up: p.up, Left: p.left, Heard: now.Sub(p.heard), Refuses: p.refused})
	}
	n.mu.Unlock()
	slices.SortFunc(s.Peers, func(a, b PeerStatus) int { return strings.Compare(a.Member.Name, b.Member.Name) })
	return s
}
