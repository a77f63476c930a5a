package cluster

import "context"

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
