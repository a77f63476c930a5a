// Package local is an in-memory wamp.Peer pair for embedded sessions (the
// HTTP bridge services): Send on one side delivers the message to the other
// side's Recv without encoding it.
package local

import (
	"io"
	"sync"

	"github.com/junction-wamp/junction/wamp"
)

// DefaultMaxMessages is the queue bound of a zero Options.
const DefaultMaxMessages = 4096

// Options bounds each direction's queue. The zero value is usable.
type Options struct {
	// MaxMessages is the number of messages one side may have waiting for
	// the other's Recv; past it the pair is closed as a slow consumer.
	// Default 4096.
	MaxMessages int
	// Parks makes the second end a wamp.Parker (ParkingPeer), for the
	// router's side: while parked it holds no goroutine, and a message
	// sent to it then is served on the sender's goroutine.
	Parks bool
}

// Pair returns the two connected ends of an in-memory connection.
func Pair(opts Options) (wamp.Peer, wamp.Peer) {
	if opts.MaxMessages <= 0 {
		opts.MaxMessages = DefaultMaxMessages
	}
	c := &conn{max: opts.MaxMessages, inline: [2]int{-1, -1}}
	for i := range c.ready {
		c.ready[i] = make(chan struct{}, 1)
	}
	if opts.Parks {
		return &Peer{c: c, side: 0}, &ParkingPeer{Peer{c: c, side: 1}}
	}
	return &Peer{c: c, side: 0}, &Peer{c: c, side: 1}
}

// conn is the state shared by both ends.
type conn struct {
	max   int
	ready [2]chan struct{} // ready[i] wakes side i's Recv; capacity 1

	mu     sync.Mutex // guards the fields below
	queue  [2][]wamp.Message
	closed error // nil while open, else ErrClosed or ErrSlowConsumer
	// flushed[i] are the AfterFlush callbacks waiting for side i to take
	// what is in queue[i].
	flushed [2][]func()
	// parked[i] resumes side i's reader while it is parked (a
	// ParkingPeer), nil while it reads. inline[i] counts the messages its
	// reader has taken since a sender's goroutine resumed it; -1 while a
	// goroutine of its own reads.
	parked [2]func()
	inline [2]int
}

// Peer is one end of a Pair.
type Peer struct {
	c       *conn
	side    int
	pending []wamp.Message // taken from the queue; Recv's goroutine only
	buf     []wamp.Message // pending's whole array, handed back for reuse
}

var _ wamp.Peer = (*Peer)(nil)

// Send delivers msg (unwrapped from a wamp.Shared) to the other end. It never
// blocks: a full queue closes the pair and returns wamp.ErrSlowConsumer.
func (p *Peer) Send(msg wamp.Message) error {
	c, to := p.c, 1-p.side
	c.mu.Lock()
	if c.closed != nil {
		c.mu.Unlock()
		return wamp.ErrClosed
	}
	if len(c.queue[to]) >= c.max {
		c.closeLocked(wamp.ErrSlowConsumer)
		c.mu.Unlock()
		c.wakeAll()
		return wamp.ErrSlowConsumer
	}
	c.queue[to] = append(c.queue[to], wamp.Unwrap(msg))
	resume := c.parked[to]
	if resume != nil {
		c.parked[to], c.inline[to] = nil, 0
	}
	c.mu.Unlock()
	if resume != nil {
		resume() // served here: no hand-off to another goroutine
		return nil
	}
	c.wake(to)
	return nil
}

// Recv returns the next message sent by the other end. Once the pair is
// closed it returns what was already sent, then io.EOF (or
// wamp.ErrSlowConsumer if that is why it closed).
func (p *Peer) Recv() (wamp.Message, error) {
	for len(p.pending) == 0 {
		if err := p.take(); err != nil {
			return nil, err
		}
	}
	m := p.pending[0]
	p.pending[0] = nil
	p.pending = p.pending[1:]
	return m, nil
}

// take waits until messages are queued for p and moves them to p.pending,
// then runs the AfterFlush callbacks that waited for them.
func (p *Peer) take() error {
	for {
		took, err := p.takeQueued()
		if took || err != nil {
			return err
		}
		<-p.c.ready[p.side]
	}
}

// takeQueued moves the messages queued for p to p.pending, if any, and
// runs the AfterFlush callbacks that waited for them. Once the pair is
// closed and nothing is queued it returns io.EOF (or why it closed).
func (p *Peer) takeQueued() (took bool, err error) {
	c := p.c
	c.mu.Lock()
	q := c.queue[p.side]
	if len(q) == 0 {
		err := c.closed
		c.mu.Unlock()
		if err == wamp.ErrClosed {
			return false, io.EOF
		}
		return false, err
	}
	c.queue[p.side] = p.buf[:0]
	p.buf, p.pending = q, q
	if c.inline[p.side] >= 0 {
		c.inline[p.side] += len(q)
	}
	flushed := c.flushed[p.side]
	c.flushed[p.side] = nil
	if c.closed != nil {
		flushed = nil // closed first: never called
	}
	c.mu.Unlock()
	for _, fn := range flushed {
		fn()
	}
	return true, nil
}

// AfterFlush calls fn once the other end's Recv has taken every message
// this end sent before the call, so that what fn sends reaches it in a
// later batch (as a stream transport writes it in a later write). fn runs
// on the other end's Recv goroutine, or at once on the caller's when
// nothing is waiting there; it must not block (Send does not). It is
// never called if the pair closes first.
func (p *Peer) AfterFlush(fn func()) {
	c, to := p.c, 1-p.side
	c.mu.Lock()
	if c.closed != nil {
		c.mu.Unlock()
		return
	}
	if len(c.queue[to]) == 0 {
		c.mu.Unlock()
		fn()
		return
	}
	c.flushed[to] = append(c.flushed[to], fn)
	c.mu.Unlock()
}

// Close closes both ends; each side's Recv drains what was sent to it first.
func (p *Peer) Close() error {
	p.c.mu.Lock()
	p.c.closeLocked(wamp.ErrClosed)
	p.c.mu.Unlock()
	p.c.wakeAll()
	return nil
}

// Info describes a local peer.
func (p *Peer) Info() wamp.PeerInfo { return wamp.PeerInfo{Transport: "local"} }

// closeLocked records why the pair closed, keeping the first reason. c.mu
// must be held; callers wake both sides after unlocking.
func (c *conn) closeLocked(why error) {
	if c.closed == nil {
		c.closed = why
	}
}

// wakeAll wakes both sides' readers once the pair has closed: a parked
// one is resumed on a goroutine of its own (the closer may hold locks
// the reader's serving takes).
func (c *conn) wakeAll() {
	c.mu.Lock()
	parked := c.parked
	c.parked = [2]func(){}
	c.inline = [2]int{-1, -1}
	c.mu.Unlock()
	for side, resume := range parked {
		if resume != nil {
			go resume()
		}
		c.wake(side)
	}
}

func (c *conn) wake(side int) {
	select {
	case c.ready[side] <- struct{}{}:
	default:
	}
}
