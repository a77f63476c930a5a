package longpoll

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// ErrSessionTimeout: the transport got no request within SessionTimeout;
// Recv returns it after the transport was closed.
var ErrSessionTimeout = errors.New("longpoll: session timeout")

// transport is one long-poll transport: the wamp.Peer of its session.
// Send, Close and Info are safe for concurrent use; Recv is called by the
// session's goroutine only.
type transport struct {
	h       *Handler
	id      string
	codec   codec.Codec
	batched bool
	info    wamp.PeerInfo
	ct      string // content type of receive answers

	in      chan []wamp.Message // send requests hand their messages to Recv
	done    chan struct{}       // closed when the transport closes
	pending []wamp.Message      // the Recv goroutine only

	mu       sync.Mutex // guards the fields below; no callback runs under it
	queue    [][]byte   // encoded messages for the client, framed if batched
	bytes    int
	err      error         // why the transport closed; nil while open
	waiter   chan struct{} // closed to wake the held receive; nil when none
	inflight int           // requests being served now
	lastSeen time.Time     // the last request's start or end
	timer    *time.Timer   // the session timeout check; nil without one
}

var _ wamp.Peer = (*transport)(nil)

func newTransport(h *Handler, id string, c codec.Codec, batched bool, info wamp.PeerInfo) *transport {
	t := &transport{h: h, id: id, codec: c, batched: batched, info: info, ct: mimeTypes[c.Name()],
		in: make(chan []wamp.Message), done: make(chan struct{}), lastSeen: time.Now()}
	if d := h.opts.SessionTimeout; d > 0 {
		t.mu.Lock()
		t.timer = time.AfterFunc(d, t.checkAlive)
		t.mu.Unlock()
	}
	return t
}

// Send encodes msg and queues it for the client's next receive; see
// wamp.Peer. Past the queue limits the transport is closed as a slow
// consumer (the first message is queued whatever its size).
func (t *transport) Send(msg wamp.Message) error {
	b, err := t.codec.Encode(msg)
	if err != nil {
		return fmt.Errorf("longpoll: %w", err)
	}
	if t.batched {
		b = codec.AppendBatch(t.codec, nil, b)
	}
	t.mu.Lock()
	if t.err != nil {
		t.mu.Unlock()
		return wamp.ErrClosed
	}
	o := t.h.opts
	if (o.QueueLimitMessages > 0 && len(t.queue) >= o.QueueLimitMessages) ||
		(o.QueueLimitBytes > 0 && t.bytes > 0 && t.bytes+len(b) > o.QueueLimitBytes) {
		n, size := len(t.queue), t.bytes
		t.mu.Unlock()
		t.h.opts.Logger.Warn("longpoll: slow consumer, closing its session", "transport", t.id,
			"queued_messages", n, "queued_bytes", size, "remote", t.info.RemoteAddr)
		t.closeWith(wamp.ErrSlowConsumer)
		return wamp.ErrSlowConsumer
	}
	t.queue = append(t.queue, b)
	t.bytes += len(b)
	t.wakeLocked()
	t.mu.Unlock()
	return nil
}

// Recv returns the next message the client sent; see wamp.Peer.
func (t *transport) Recv() (wamp.Message, error) {
	for len(t.pending) == 0 {
		select {
		case msgs := <-t.in:
			t.pending = msgs
		case <-t.done:
			return nil, t.recvError()
		}
	}
	m := t.pending[0]
	t.pending[0] = nil
	t.pending = t.pending[1:]
	return m, nil
}

// recvError is Recv's error once the transport closed: io.EOF after
// Close, otherwise why it closed.
func (t *transport) recvError() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == wamp.ErrClosed {
		return io.EOF
	}
	return t.err
}

// Close closes the transport; see wamp.Peer. Messages still queued (the
// router's GOODBYE or ABORT) wait CloseTimeout for the client's receive.
func (t *transport) Close() error {
	t.closeWith(wamp.ErrClosed)
	return nil
}

// Info describes the transport.
func (t *transport) Info() wamp.PeerInfo { return t.info }

// closeWith closes the transport for why, once: the session's Recv ends,
// a held receive is answered, and the handler forgets the transport once
// its queue is empty or after CloseTimeout.
func (t *transport) closeWith(why error) {
	t.mu.Lock()
	if t.err != nil {
		t.mu.Unlock()
		return
	}
	t.err = why
	t.wakeLocked()
	if t.timer != nil {
		t.timer.Stop()
	}
	empty := len(t.queue) == 0
	t.mu.Unlock()
	close(t.done)
	if empty {
		t.h.remove(t)
		return
	}
	time.AfterFunc(t.h.opts.CloseTimeout, func() { t.h.remove(t) })
}

// wake answers the held receive, if any.
func (t *transport) wake() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.wakeLocked()
}

// wakeLocked wakes the held receive. t.mu must be held.
func (t *transport) wakeLocked() {
	if t.waiter != nil {
		close(t.waiter)
		t.waiter = nil
	}
}

// begin notes a request's start, for the session timeout; end its end.
func (t *transport) begin() {
	t.mu.Lock()
	t.inflight++
	t.lastSeen = time.Now()
	t.mu.Unlock()
}

func (t *transport) end() {
	t.mu.Lock()
	t.inflight--
	t.lastSeen = time.Now()
	t.mu.Unlock()
}

// checkAlive runs when the session timeout may have passed: it closes a
// transport with no request since, and none being served; otherwise it
// checks again when the timeout would pass.
func (t *transport) checkAlive() {
	d := t.h.opts.SessionTimeout
	t.mu.Lock()
	if t.err != nil {
		t.mu.Unlock()
		return
	}
	idle := time.Since(t.lastSeen)
	alive := t.inflight > 0 || idle < d
	if t.inflight > 0 {
		idle = 0
	}
	if alive {
		t.timer.Reset(d - idle)
	}
	t.mu.Unlock()
	if alive {
		return
	}
	t.h.opts.Logger.Info("longpoll: session timeout, closing the transport", "transport", t.id,
		"session_timeout", d, "remote", t.info.RemoteAddr)
	t.closeWith(ErrSessionTimeout)
}
