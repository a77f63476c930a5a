package cluster

// SkipSequence makes the next message from n to member to skip k numbers,
// as if k messages had been lost on the way.
func SkipSequence(n *Node, to Member, k uint64) {
	n.sendMu.Lock()
	defer n.sendMu.Unlock()
	n.outLocked(n.Self(), to).seq += k
}
