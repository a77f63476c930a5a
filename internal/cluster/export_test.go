package cluster

import (
	"context"
	"fmt"
	"time"
)

// SkipSequence makes the next message from n to member to skip k numbers,
// as if k messages had been lost on the way.
func SkipSequence(n *Node, to Member, k uint64) {
	n.sendMu.Lock()
	defer n.sendMu.Unlock()
	n.outLocked(n.Self(), to).seq += k
}

// Deafen makes n drop the heartbeats of the member named name (on), as a
// cut in one direction would: n loses the member within its lease while
// the member still hears n; or hear them again (off).
func Deafen(n *Node, name string, on bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if on {
		n.deaf[name] = true
	} else {
		delete(n.deaf, name)
	}
}

// ReapLocked reports whether f's sess table holds the reap lock of member
// m (its reaping begun and not finished).
func ReapLocked(f *Fabric, m Member) (bool, error) {
	s := f.sessions
	ctx, cancel := context.WithTimeout(context.Background(), reapTimeout)
	defer cancel()
	all, err := s.readAll(ctx, s.table(), "reap."+memberKey(m))
	return len(all) > 0, err
}

// stepdownWait bounds one leader stepdown request; one that is lost is
// asked again.
const stepdownWait = 2 * time.Second

// LeadTables makes n's server the leader of each of tables (JetStream
// leader stepdowns that prefer it), so that once the others stop, its
// writes wait for a quorum that never comes instead of failing at once
// for want of a leader.
func LeadTables(ctx context.Context, n *Node, tables ...string) error {
	for _, t := range tables {
		stream := "KV_jx_" + n.cfg.Name + "_" + t
		for {
			// A stepdown is asked only of a stream that has a leader and
			// it is another server: during an election nobody answers the
			// request, which would then wait out ctx.
			s, err := n.js.Stream(ctx, stream)
			if err == nil && s.CachedInfo().Cluster != nil {
				leader := s.CachedInfo().Cluster.Leader
				if leader == n.emb.srv.Name() {
					break
				}
				if leader != "" {
					req := []byte(`{"placement":{"preferred":"` + n.emb.srv.Name() + `"}}`)
					rctx, cancel := context.WithTimeout(ctx, stepdownWait)
					_, err = n.nc.RequestWithContext(rctx, "$JS.API.STREAM.LEADER.STEPDOWN."+stream, req)
					cancel()
				}
			}
			if ctx.Err() != nil {
				return fmt.Errorf("table %s not led by %s: %w (%v)", t, n.Self(), ctx.Err(), err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond): // the election, polled with ctx's deadline
			}
		}
	}
	return nil
}

// WatchAgreed calls f with each member whose loss n and the members it
// hears agree on (agree.go).
func WatchAgreed(n *Node, f func(Member)) (stop func()) { return n.watchAgreed(f) }

// LossAgreed reports whether n agreed on the loss of member m.
func LossAgreed(n *Node, m Member) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.peers[m.Name]
	return p != nil && p.member == m && p.agreed
}

// HeardSince reports whether n had a heartbeat of member m after t: the
// losses n agrees on were weighed against m's word then.
func HeardSince(n *Node, m Member, t time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.peers[m.Name]
	return p != nil && p.member == m && p.said.After(t)
}
