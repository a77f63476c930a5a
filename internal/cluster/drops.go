package cluster

import (
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
)

// dropReason is why an event (a publication on its way between members)
// was dropped.
type dropReason uint8

const (
	// dropMemberLost: the event came from a member this node holds lost
	// (its messages are dropped until it is heard again), or was for an
	// interested member no longer live.
	dropMemberLost dropReason = iota
	// dropSendFailed: this node could not send it: it is fenced, or
	// stopping, or NATS refused it (its connection's buffer full while
	// it reconnects).
	dropSendFailed
	// dropNoRealm: it came for a realm this node does not serve (any
	// more: the realm closed).
	dropNoRealm
	// dropMalformed: it could not be encoded or decoded.
	dropMalformed
	dropReasons
)

// String is the reason as junction_cluster_events_dropped_total labels it.
func (r dropReason) String() string {
	return [dropReasons]string{"member_lost", "send_failed", "no_realm", "malformed"}[r]
}

// dropLogInterval is the least time between two logs of dropped events.
const dropLogInterval = 10 * time.Second

// eventDrops counts the events dropped by reason, and lets a log of them
// through at most once per dropLogInterval.
type eventDrops struct {
	n    [dropReasons]atomic.Uint64
	warn lograte.Limit // its Interval set by New
}

// EventDrops are the events this node dropped since it started, by
// reason (Stats.EventsDropped).
type EventDrops struct {
	MemberLost, SendFailed, NoRealm, Malformed uint64
}

// ByReason returns the counts by the reason's label.
func (d EventDrops) ByReason() map[string]uint64 {
	return map[string]uint64{dropMemberLost.String(): d.MemberLost, dropSendFailed.String(): d.SendFailed,
		dropNoRealm.String(): d.NoRealm, dropMalformed.String(): d.Malformed}
}

func (d *eventDrops) stats() EventDrops {
	return EventDrops{MemberLost: d.n[dropMemberLost].Load(), SendFailed: d.n[dropSendFailed].Load(),
		NoRealm: d.n[dropNoRealm].Load(), Malformed: d.n[dropMalformed].Load()}
}

// eventDropped counts an event dropped for reason, to or from member,
// and logs it at warning, rate-limited: the subscribers there or here
// miss it.
func (n *Node) eventDropped(r dropReason, member Member, args ...any) {
	n.counts.events.n[r].Add(1)
	if ok, suppressed := n.counts.events.warn.Allow(); ok {
		n.log.Warn("cluster: event dropped", append([]any{"reason", r.String(), "member", member.String(),
			"suppressed", suppressed}, args...)...)
	}
}
