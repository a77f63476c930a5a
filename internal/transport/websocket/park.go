package websocket

import (
	"github.com/junction-wamp/junction/internal/transport/idlepoll"
	"github.com/junction-wamp/junction/internal/transport/idlereader"
	"github.com/junction-wamp/junction/wamp"
)

var (
	_ wamp.Parker    = (*Peer)(nil)
	_ wamp.NowSender = (*Peer)(nil)
)

// SendNow queues msg, or writes it at once; see wamp.NowSender.
func (p *Peer) SendNow(msg wamp.Message) error { return p.out.SendNow(msg) }

// Buffered reports whether more of the client's data waits; see
// wamp.Parker.
func (p *Peer) Buffered() bool {
	if len(p.batch) > 0 {
		return true
	}
	r, ok := p.rd.(*idlereader.Reader)
	return ok && r.Buffered()
}

// enablePark lets the peer park on conn (see wamp.Parker); ended is what
// the handler does once the session is over.
func (p *Peer) enablePark(conn *idlepoll.Conn, ended func()) {
	p.park, p.ended = conn, ended
}

// RecvOrIdle is Recv, or wamp.ErrIdle between messages once the
// connection has been idle for idlereader.Linger, when the peer can park.
func (p *Peer) RecvOrIdle() (wamp.Message, error) {
	if p.park != nil && len(p.batch) == 0 && !p.conn.closeSent.Load() {
		if r, ok := p.rd.(*idlereader.Reader); ok && r.Wait() == idlereader.ErrIdle {
			return nil, wamp.ErrIdle
		}
	}
	return p.Recv()
}

// Park parks the connection, giving back its read buffer; see
// wamp.Parker. It fails (read on) when the client's data waits in the
// peer, or once the peer sent its close frame.
func (p *Peer) Park(resume func()) bool {
	if p.park == nil || len(p.batch) > 0 || p.conn.closeSent.Load() {
		return false
	}
	if r, ok := p.rd.(*idlereader.Reader); !ok || !r.Idle() || p.park.Park(resume) != nil {
		return false
	}
	p.detached.Store(true)
	return true
}

// Ended runs what the handler does after a session; see wamp.Parker.
func (p *Peer) Ended() {
	if p.ended != nil {
		p.ended()
	}
}
