package cluster

// SkipSequence makes the next message from n to member to skip k numbers,
// as if k messages had been lost on the way.
func SkipSequence(n *Node, to Member, k uint64) {
	n.sendMu.Lock()
	defer n.sendMu.Unlock()
	o := n.out[to.Name]
	if o == nil || o.epoch != to.Epoch {
		o = &outState{epoch: to.Epoch, subject: n.inboxSubject(to.Name)}
		n.out[to.Name] = o
	}
	o.seq += k
}
