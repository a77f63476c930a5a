package cluster

import (
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// agreeNode is a node that is never joined: the tests below give it
// heartbeats and silences by hand, and read the losses it agreed on.
func agreeNode(t *testing.T) *Node {
	t.Helper()
	n, err := New(Config{Name: "test", Node: "node-1", Embedded: &Embedded{}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// beat gives n a heartbeat of from, which holds lost and hears heard.
func beat(n *Node, from Member, flags byte, lost, heard []Member) {
	h := heartbeat{flags: flags, member: from, lost: lost, heard: heard}
	n.onHeartbeat(&nats.Msg{Subject: "jx.test.hb", Data: appendHeartbeat(nil, h)})
}

// silence makes n lose m: its last heartbeat is two leases old.
func silence(n *Node, m Member) {
	n.mu.Lock()
	n.peers[m.Name].heard = time.Now().Add(-2 * n.cfg.Lease)
	n.mu.Unlock()
	n.expire(time.Now())
}

// settle makes n's peers heard for a lease already: their word counts.
func settle(n *Node) {
	n.mu.Lock()
	for _, p := range n.peers {
		p.first = p.first.Add(-n.cfg.Lease)
	}
	n.mu.Unlock()
}

// agreedOn returns the members whose loss n announced as agreed, in the
// order announced, and drops its queued events.
func agreedOn(n *Node) []Member {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []Member
	for _, e := range n.events {
		if e.agreed != nil {
			out = append(out, *e.agreed)
		}
	}
	n.events = nil
	return out
}

// TestAgreeLoss: node-1 agrees on the loss of a member (announces it, for
// the reaping) only while it hears a majority, and only once no member it
// hears, heard for a lease at least, still hears it; an earlier life of a
// member whose new life is heard, and a member that says it is fenced,
// are agreed on at once.
func TestAgreeLoss(t *testing.T) {
	b, c, d, e := Member{"node-2", 2}, Member{"node-3", 3}, Member{"node-4", 4}, Member{"node-5", 5}
	self := func(n *Node) Member { return n.Self() }
	tests := []struct {
		name string
		run  func(t *testing.T, n *Node) []Member // the agreed losses
		want []Member
	}{
		{"one-way cut: node-3 still hears node-2", func(t *testing.T, n *Node) []Member {
			beat(n, b, 0, nil, []Member{c})
			beat(n, c, 0, nil, []Member{b})
			settle(n)
			silence(n, b)
			beat(n, c, 0, nil, []Member{self(n), b})
			return agreedOn(n)
		}, nil},
		{"a death: node-3 loses node-2 too", func(t *testing.T, n *Node) []Member {
			beat(n, b, 0, nil, []Member{c})
			beat(n, c, 0, nil, []Member{b})
			settle(n)
			silence(n, b)
			if got := agreedOn(n); len(got) != 0 {
				t.Errorf("agreed on %v before node-3 said it lost node-2", got)
			}
			beat(n, c, 0, []Member{b}, []Member{self(n)})
			return agreedOn(n)
		}, []Member{b}},
		{"node-3 heard for less than a lease: it may not have heard node-2 yet", func(t *testing.T, n *Node) []Member {
			beat(n, b, 0, nil, nil)
			beat(n, c, 0, nil, nil)
			silence(n, b)
			if got := agreedOn(n); len(got) != 0 {
				t.Errorf("agreed on %v on the word of a member heard a moment ago", got)
			}
			settle(n)
			n.expire(time.Now())
			return agreedOn(n)
		}, []Member{b}},
		{"isolated: node-1 hears 1 of 3", func(t *testing.T, n *Node) []Member {
			beat(n, b, 0, nil, nil)
			beat(n, c, 0, nil, nil)
			settle(n)
			silence(n, b)
			agreedOn(n) // node-3 hears nobody: node-2's loss is agreed
			silence(n, c)
			if !n.isolated {
				t.Fatal("not isolated")
			}
			return agreedOn(n)
		}, nil},
		{"five nodes: node-5 still hears node-2", func(t *testing.T, n *Node) []Member {
			beat(n, b, 0, nil, nil)
			for _, m := range []Member{c, d, e} {
				beat(n, m, 0, nil, []Member{b})
			}
			settle(n)
			silence(n, b)
			beat(n, c, 0, []Member{b}, nil)
			beat(n, d, 0, []Member{b}, nil)
			beat(n, e, 0, nil, []Member{b})
			return agreedOn(n)
		}, nil},
		{"node-2 heard again before the agreement", func(t *testing.T, n *Node) []Member {
			beat(n, b, 0, nil, nil)
			beat(n, c, 0, nil, []Member{b})
			settle(n)
			silence(n, b)
			beat(n, b, 0, nil, nil)
			beat(n, c, 0, nil, nil)
			n.expire(time.Now())
			return agreedOn(n)
		}, nil},
		{"a new life of node-2: its earlier one is over, even while isolated", func(t *testing.T, n *Node) []Member {
			beat(n, b, 0, nil, nil)
			beat(n, c, 0, nil, []Member{b})
			settle(n)
			silence(n, c)
			silence(n, b)
			if !n.isolated {
				t.Fatal("not isolated")
			}
			agreedOn(n)
			beat(n, Member{"node-2", 22}, 0, nil, nil)
			return agreedOn(n)
		}, []Member{b}},
		{"node-2 says it is fenced", func(t *testing.T, n *Node) []Member {
			beat(n, b, 0, nil, nil)
			beat(n, c, 0, nil, []Member{b})
			settle(n)
			beat(n, b, hbIsolated, nil, nil)
			return agreedOn(n)
		}, []Member{b}},
		{"node-2 lost again after it was heard again: agreed anew", func(t *testing.T, n *Node) []Member {
			beat(n, b, 0, nil, nil)
			beat(n, c, 0, nil, nil)
			settle(n)
			silence(n, b)
			agreedOn(n)
			beat(n, b, 0, nil, nil)
			silence(n, b)
			return agreedOn(n)
		}, []Member{b}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := agreeNode(t)
			if got := tt.run(t, n); !slices.Equal(got, tt.want) {
				t.Errorf("agreed on %v, want %v", got, tt.want)
			}
		})
	}
}

// TestHeartbeatAfterGoodbye: a heartbeat that a member sent before its
// goodbye, and that comes after it (the goodbye goes on another subject),
// does not bring the member back: that life is over.
func TestHeartbeatAfterGoodbye(t *testing.T) {
	n := agreeNode(t)
	b := Member{"node-2", 2}
	beat(n, b, 0, nil, nil)
	beat(n, b, hbLeave, nil, nil)
	beat(n, b, 0, nil, nil)
	if m := n.Members(); !slices.Equal(m, []Member{n.Self()}) {
		t.Errorf("members %v, want this node alone", m)
	}
	beat(n, Member{"node-2", 3}, 0, nil, nil)
	if m := n.Members(); len(m) != 2 {
		t.Errorf("members %v, want this node and node-2's new life", m)
	}
}

// TestHeartbeatHeard: a heartbeat lists the members its node hears and
// those it holds lost; a fenced node's lists neither.
func TestHeartbeatHeard(t *testing.T) {
	n := agreeNode(t)
	b, c := Member{"node-2", 2}, Member{"node-3", 3}
	beat(n, b, 0, nil, nil)
	beat(n, c, 0, nil, nil)
	silence(n, b)
	n.mu.Lock()
	lost, heard := n.heldLostLocked(), n.hearsLocked()
	n.mu.Unlock()
	if !slices.Equal(lost, []Member{b}) || !slices.Equal(heard, []Member{c}) {
		t.Errorf("lost %v, heard %v; want [%v], [%v]", lost, heard, b, c)
	}
	select {
	case <-n.beatNow:
	default:
		t.Error("no heartbeat asked for at once on a loss")
	}
}

// TestWhoHolds: a starting node's name check is answered with the live
// member of that name, but for the asker itself (its question came after
// its first heartbeat).
func TestWhoHolds(t *testing.T) {
	n := agreeNode(t)
	two := Member{Name: "node-2", Epoch: 7}
	beat(n, two, 0, nil, nil)
	tests := []struct {
		name, token, asker, want string
	}{
		{"a live member's name", Token("node-2"), "", two.String()},
		{"its other life asks", Token("node-2"), Member{Name: "node-2", Epoch: 8}.String(), two.String()},
		{"the member itself asks", Token("node-2"), two.String(), ""},
		{"this node's name", Token("node-1"), "", n.Self().String()},
		{"nobody's", Token("node-9"), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := n.whoHolds(tt.token, tt.asker); got != tt.want {
				t.Errorf("whoHolds = %q, want %q", got, tt.want)
			}
		})
	}
}
