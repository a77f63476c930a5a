package rawsocket

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
func (p *Peer) Buffered() bool { return p.rd.Buffered() }

// enablePark lets the peer park on conn (see wamp.Parker); ended is what
// the server does once the session is over.
func (p *Peer) enablePark(conn *idlepoll.Conn, ended func()) {
	p.park, p.ended = conn, ended
}

// RecvOrIdle is Recv, or wamp.ErrIdle between messages once the
// connection has been idle for idlereader.Linger, when the peer can park.
func (p *Peer) RecvOrIdle() (wamp.Message, error) {
	if p.park != nil && p.rd.Wait() == idlereader.ErrIdle {
		return nil, wamp.ErrIdle
	}
	return p.Recv()
}

// Park parks the connection, giving back its read buffer; see
// wamp.Parker. It fails (read on) when the client's data waits in the
// peer.
func (p *Peer) Park(resume func()) bool {
	if p.park == nil || !p.rd.Idle() || p.park.Park(resume) != nil {
		return false
	}
	p.detached.Store(true)
	return true
}

// Ended runs what the server does after a session; see wamp.Parker.
func (p *Peer) Ended() {
	if p.ended != nil {
		p.ended()
	}
}
