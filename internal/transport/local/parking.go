package local

import (
	"github.com/junction-wamp/junction/wamp"
)

// maxInline is how many messages a sender's goroutine serves, once it
// has resumed a parked reader, before it hands the rest to a goroutine of
// their own: a sender is not kept serving the others' messages for long.
const maxInline = 32

// ParkingPeer is the second end of a Pair made with Options.Parks: a
// wamp.Parker whose reader, the router's, parks as soon as nothing is
// queued for it, and is resumed on the goroutine of the Send that queues
// the next message. A session served so holds no goroutine while idle,
// and a message costs no hand-off to another goroutine: the HTTP Caller's
// handler runs the router's work for its CALL itself.
type ParkingPeer struct {
	Peer
}

var _ wamp.Parker = (*ParkingPeer)(nil)

// RecvOrIdle returns the next message sent by the other end, or
// wamp.ErrIdle when none is queued; once the pair is closed, what was
// already sent, then io.EOF (or wamp.ErrSlowConsumer). A reader that a
// sender's goroutine resumed also gets wamp.ErrIdle once it has taken
// maxInline messages, between two batches (Park then hands the rest to
// a goroutine of its own).
func (p *ParkingPeer) RecvOrIdle() (wamp.Message, error) {
	if len(p.pending) == 0 {
		if p.servedEnough() {
			return nil, wamp.ErrIdle
		}
		took, err := p.takeQueued()
		if err != nil {
			return nil, err
		}
		if !took {
			return nil, wamp.ErrIdle
		}
	}
	return p.Recv()
}

// servedEnough reports whether a sender's goroutine has served maxInline
// messages since it resumed p's reader.
func (p *ParkingPeer) servedEnough() bool {
	p.c.mu.Lock()
	defer p.c.mu.Unlock()
	return p.c.inline[p.side] >= maxInline
}

// Park arranges for resume to run once a message is sent to p: on the
// sender's goroutine, or on a goroutine of its own when the pair closes.
// When messages are queued already, it reports false (read on), except
// for a reader that a sender's goroutine served maxInline messages: resume
// then runs at once on a goroutine of its own. It reports false once the
// pair is closed.
func (p *ParkingPeer) Park(resume func()) bool {
	c := p.c
	c.mu.Lock()
	if c.closed != nil {
		c.mu.Unlock()
		return false
	}
	if len(c.queue[p.side]) > 0 {
		inline := c.inline[p.side] >= 0
		c.inline[p.side] = -1
		c.mu.Unlock()
		if !inline {
			return false
		}
		go resume()
		return true
	}
	c.parked[p.side] = resume
	c.mu.Unlock()
	return true
}

// Buffered reports whether messages taken in p's last batch wait to be
// read: the other end sent several before p's reader took them.
func (p *ParkingPeer) Buffered() bool { return len(p.pending) > 0 }

// Ended does nothing: a pair holds nothing that outlives its session.
func (p *ParkingPeer) Ended() {}
