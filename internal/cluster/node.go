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
// own constants, but 0: the node's own.
type Kind uint8

// Node is this process's member of the cluster. Safe for concurrent use.
//
// Locks: sendMu may be held while taking mu (Send reads Self), never the
// reverse; recvMu and mu are never held together. No callback (handler,
// watcher) runs under a lock.
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

	mu         sync.Mutex // guards the fields down to events, and the watchers' set
	self       Member
	peers      map[string]*peer // the other members by name, live or lost
	isolated   bool
	isolations int             // times this node was isolated
	holding    chan struct{}   // closed when this node is isolated (majority)
	deaf       map[string]bool // members whose heartbeats it drops (tests: Deafen)
	watchers   []*watcher
	onGap      []func(Member, uint64)
	events     []event // queued for the events goroutine, in order
	wake       chan struct{}
	beatNow    chan struct{} // a heartbeat to send now (beatSoonLocked)

	sendMu  sync.Mutex // guards out and sendBuf; held across the publish
	out     map[string]*outState
	sendBuf []byte

	recvMu sync.Mutex // guards in and closed: the inbox subscription's state
	in     map[string]*sender
	closed bool

	stopsMu     sync.Mutex     // guards stopsClosed, and the Add of stops; a leaf
	stops       sync.WaitGroup // watchers' Stops left to end with the connection (stopWatcher)
	stopsClosed bool           // the connection is closed: Stop returns at once

	joining  atomic.Bool
	joined   chan struct{} // closed by Join once joined
	done     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup // the node's goroutines
}

// counts are the node's message counters (read with Stats).
type counts struct {
	sent, received, gaps, lost, dropped atomic.Uint64
	events                              eventDrops // events dropped, by reason (drops.go)
}

// Stats are the counters of the node's messages since it started.
type Stats struct {
	Sent, Received uint64
	Gaps           uint64 // gaps found in a sender's sequence
	Lost           uint64 // messages those gaps skipped
	Dropped        uint64 // for an earlier epoch, from a lost member, of no handler
	// EventsDropped are the publications not delivered to another
	// member's subscribers, or to this node's, by reason (each logged,
	// rate-limited).
	EventsDropped EventDrops
}

// Errors of Send.
var (
	ErrNotMember = errors.New("cluster: not a live member")
	ErrClosed    = errors.New("cluster: node closed")
	ErrIsolated  = errors.New("cluster: node isolated from the cluster")
)

// Start joins the cluster of cfg: New, then Join.
func Start(ctx context.Context, cfg Config, log *slog.Logger) (*Node, error) {
	n, err := New(cfg, log)
	if err != nil {
		return nil, err
	}
	if err := n.Join(ctx); err != nil {
		return nil, err
	}
	return n, nil
}

// New makes the node of cfg without reaching the network (Join does).
// Until it joins, the node's handlers and watchers may be set, Members is
// the node alone, Send fails and KV waits for the join.
func New(cfg Config, log *slog.Logger) (*Node, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	n := &Node{
		cfg: cfg, log: log.With("cluster", cfg.Name, "node", cfg.Node),
		prefix: "jx." + cfg.Name, self: Member{Name: cfg.Node, Epoch: newEpoch()},
		peers: map[string]*peer{}, wake: make(chan struct{}, 1), beatNow: make(chan struct{}, 1), holding: make(chan struct{}), deaf: map[string]bool{},
		out: map[string]*outState{}, in: map[string]*sender{},
		joined: make(chan struct{}), done: make(chan struct{}),
	}
	n.counts.events.warn.Interval = dropLogInterval
	return n, nil
}

// Join starts the embedded nats-server (or connects to the external
// NATS), checks that no live member has the node's name, and starts the
// heartbeats. A node joins once, and not after Close; when Join fails,
// the node is closed.
func (n *Node) Join(ctx context.Context) error {
	if !n.joining.CompareAndSwap(false, true) {
		return errors.New("cluster: Join called twice")
	}
	select {
	case <-n.done:
		return ErrClosed // closed before it joined
	default:
	}
	if err := n.connect(ctx); err != nil {
		n.shutdown(false)
		return err
	}
	if err := n.join(ctx); err != nil {
		n.shutdown(false)
		return err
	}
	close(n.joined)
	n.log.Info("cluster: joined", "member", n.Self().String(), "replicas", n.replicas)
	return nil
}

// Joined is closed once the node has joined.
func (n *Node) Joined() <-chan struct{} { return n.joined }

// connect starts the embedded server if any and connects the node's
// client.
func (n *Node) connect(ctx context.Context) error {
	opts := []nats.Option{nats.Name("junction " + n.cfg.Node), nats.NoEcho(),
		nats.MaxReconnects(-1), nats.ErrorHandler(n.natsError)}
	var url string
	if n.cfg.Embedded != nil {
		if err := checkRouteNames(ctx, n.cfg.Embedded.Routes, Token(n.cfg.Node), ""); err != nil {
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
		opts = append(opts, inProcess(emb, n.cfg.Embedded.Link)...)
		opts = append(opts, nats.UserInfo(emb.user, emb.password))
	} else {
		var err error
		if url, opts, err = externalOptions(n.cfg.External, opts); err != nil {
			return err
		}
		n.replicas = n.cfg.replicas()
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
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
	if n.emb != nil {
		if err := checkRouteNames(ctx, n.cfg.Embedded.Routes, Token(n.cfg.Node), n.emb.srv.ID()); err != nil {
			return err
		}
	}
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

// Isolated reports whether this node hears fewer than a majority of the
// members it knows (itself included): fenced, it has no members and sends
// nothing until it hears a majority again and rejoins with a new epoch.
func (n *Node) Isolated() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.isolated
}

// Fenced reports whether this node is isolated and fences itself
// (on_isolation fence): it must not serve.
func (n *Node) Fenced() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.fencedLocked()
}

// Stats returns the node's counters.
func (n *Node) Stats() Stats {
	return Stats{Sent: n.counts.sent.Load(), Received: n.counts.received.Load(),
		Gaps: n.counts.gaps.Load(), Lost: n.counts.lost.Load(), Dropped: n.counts.dropped.Load(),
		EventsDropped: n.counts.events.stats()}
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
			n.sayGoodbye()
			n.publishHeartbeat(hbLeave)
			n.nc.FlushTimeout(time.Second)
		}
		if n.nc != nil {
			n.nc.Close()
		}
		n.stopsMu.Lock()
		n.stopsClosed = true
		n.stopsMu.Unlock()
		n.stops.Wait()
		if n.emb != nil {
			n.emb.shutdown()
		}
		select {
		case <-n.joined:
			n.log.Info("cluster: left", "member", n.Self().String(), "clean", leave)
		default:
		}
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
