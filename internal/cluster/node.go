package cluster

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Member is one life of a node: its name and the epoch, random at every
// start and at every rejoin after isolation.
type Member struct {
	Name  string
	Epoch uint64
}

// String is name.epoch (the epoch in hex).
func (m Member) String() string { return m.Name + "." + strconv.FormatUint(m.Epoch, 16) }

// Kind tells what a message of Send is; each user of the node declares its
// own constants.
type Kind uint8

// Node is this process's member of the cluster. Safe for concurrent use.
type Node struct {
	cfg      Config
	log      *slog.Logger
	emb      *embedded // nil with external NATS
	nc       *nats.Conn
	js       jetstream.JetStream
	prefix   string // "jx.<cluster>"
	replicas int    // of the KV buckets
	subs     []*nats.Subscription

	handlers [256]atomic.Pointer[func(Member, []byte)]
	counts   counts

	mu       sync.Mutex // guards the fields down to events, and the watchers' set
	self     Member
	peers    map[string]*peer // the other members by name, live or lost
	isolated bool
	watchers []*watcher
	onGap    []func(Member, uint64)
	events   []event // queued for the events goroutine, in order
	wake     chan struct{}

	sendMu  sync.Mutex // guards out and sendBuf; held across the publish
	out     map[string]*outState
	sendBuf []byte

	recvMu sync.Mutex // guards in and closed: the inbox subscription's state
	in     map[string]*sender
	closed bool

	done     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup // the node's goroutines
}

// counts are the node's message counters (read with Stats).
type counts struct {
	sent, received, gaps, lost, dropped atomic.Uint64
}

// Stats are the counters of the node's messages since it started.
type Stats struct {
	Sent, Received uint64
	Gaps           uint64 // gaps found in a sender's sequence
	Lost           uint64 // messages those gaps skipped
	Dropped        uint64 // for an earlier epoch, from a lost member, of no handler
}

// Errors of Send.
var (
	ErrNotMember = errors.New("cluster: not a live member")
	ErrClosed    = errors.New("cluster: node closed")
	ErrIsolated  = errors.New("cluster: node isolated from the cluster")
)

// Start joins the cluster of cfg: it starts the embedded nats-server (or
// connects to the external one), checks that no live member has cfg.Node,
// and starts the heartbeats. Close leaves.
func Start(ctx context.Context, cfg Config, log *slog.Logger) (*Node, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	n := &Node{
		cfg: cfg, log: log.With("cluster", cfg.Name, "node", cfg.Node),
		prefix: "jx." + cfg.Name, self: Member{Name: cfg.Node, Epoch: newEpoch()},
		peers: map[string]*peer{}, wake: make(chan struct{}, 1),
		out: map[string]*outState{}, in: map[string]*sender{}, done: make(chan struct{}),
	}
	if err := n.connect(ctx); err != nil {
		return nil, err
	}
	if err := n.join(ctx); err != nil {
		n.shutdown(false)
		return nil, err
	}
	n.log.Info("cluster: joined", "member", n.self.String(), "replicas", n.replicas)
	return n, nil
}

// connect starts the embedded server if any and connects the node's
// client.
func (n *Node) connect(ctx context.Context) error {
	opts := []nats.Option{nats.Name("junction " + n.cfg.Node), nats.NoEcho(),
		nats.MaxReconnects(-1), nats.ErrorHandler(n.natsError)}
	var url string
	if n.cfg.Embedded != nil {
		if err := checkRouteNames(ctx, n.cfg.Embedded.Routes, Token(n.cfg.Node)); err != nil {
			return err
		}
		emb, err := startEmbedded(n.cfg, n.log)
		if err != nil {
			return err
		}
		n.emb, url = emb, emb.clientURL()
		n.replicas = n.cfg.Embedded.Replicas
		if n.replicas == 0 {
			n.replicas = min(3, emb.routes+1)
		}
		opts = append(opts, nats.InProcessServer(emb.srv), nats.UserInfo(emb.user, emb.password))
	} else {
		var err error
		if url, opts, err = externalOptions(n.cfg.External, opts); err != nil {
			return err
		}
		n.replicas = n.cfg.replicas()
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		if n.emb != nil {
			n.emb.shutdown()
		}
		return fmt.Errorf("cluster: connect to NATS: %w", err)
	}
	n.nc = nc
	n.js, err = jetstream.New(nc)
	return err
}

// join subscribes, checks the name and starts the goroutines.
func (n *Node) join(ctx context.Context) error {
	for _, s := range []struct {
		subject string
		h       nats.MsgHandler
	}{
		{n.prefix + ".hb", n.onHeartbeat},
		{n.inboxSubject(n.cfg.Node), n.onEnvelope},
		{n.prefix + ".who.*", n.onWho},
	} {
		sub, err := n.nc.Subscribe(s.subject, s.h)
		if err != nil {
			return fmt.Errorf("cluster: subscribe: %w", err)
		}
		n.subs = append(n.subs, sub)
	}
	if err := n.nc.Flush(); err != nil {
		return fmt.Errorf("cluster: NATS: %w", err)
	}
	n.waitRoutes(ctx)
	if err := n.checkName(ctx); err != nil {
		return err
	}
	n.wg.Add(2)
	go n.runEvents()
	go n.runHeartbeats()
	return nil
}

// waitRoutes waits, at most a lease, until the embedded server has a
// route to every other node configured, so that the name check reaches
// them. Nodes that are down cost the wait once, at start.
func (n *Node) waitRoutes(ctx context.Context) {
	if n.emb == nil || n.emb.routes == 0 {
		return
	}
	deadline := time.NewTimer(n.cfg.Lease)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for n.emb.remotes() < n.emb.routes {
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			n.log.Warn("cluster: starting without routes to every configured node",
				"routes", n.emb.remotes(), "configured", n.emb.routes)
			return
		case <-tick.C:
		}
	}
}

// Self is this node's current member (its epoch changes on a rejoin).
func (n *Node) Self() Member {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.self
}

// Stats returns the node's counters.
func (n *Node) Stats() Stats {
	return Stats{Sent: n.counts.sent.Load(), Received: n.counts.received.Load(),
		Gaps: n.counts.gaps.Load(), Lost: n.counts.lost.Load(), Dropped: n.counts.dropped.Load()}
}

// Close leaves the cluster cleanly: the other members see this node gone
// at once. The node's handlers have returned when Close does.
func (n *Node) Close() error {
	n.shutdown(true)
	return nil
}

// Kill stops the node as if its process died: no goodbye, the NATS
// connection and the embedded server closed at once, so the others see it
// gone only when its lease expires. For tests (clustertest.Kill).
func (n *Node) Kill() { n.shutdown(false) }

// shutdown stops the goroutines, says goodbye when leave is set, and
// closes NATS.
func (n *Node) shutdown(leave bool) {
	n.stopOnce.Do(func() {
		n.recvMu.Lock()
		n.closed = true
		n.recvMu.Unlock()
		close(n.done)
		n.wg.Wait()
		if leave && n.nc != nil {
			n.publishHeartbeat(hbLeave)
			n.nc.FlushTimeout(time.Second)
		}
		if n.nc != nil {
			n.nc.Close()
		}
		if n.emb != nil {
			n.emb.shutdown()
		}
		n.log.Info("cluster: left", "member", n.Self().String(), "clean", leave)
	})
}

// natsError logs the client's asynchronous errors (a slow consumer: the
// subscription's pending limit reached, messages dropped; the sequence
// numbers count them as gaps).
func (n *Node) natsError(_ *nats.Conn, sub *nats.Subscription, err error) {
	subject := ""
	if sub != nil {
		subject = sub.Subject
	}
	n.log.Error("cluster: NATS", "subject", subject, "error", err)
}

func (n *Node) inboxSubject(name string) string { return n.prefix + ".n." + Token(name) + ".in" }

// newEpoch returns a random non-zero epoch.
func newEpoch() uint64 {
	var b [8]byte
	for {
		rand.Read(b[:])
		if e := binary.BigEndian.Uint64(b[:]); e != 0 {
			return e
		}
	}
}
