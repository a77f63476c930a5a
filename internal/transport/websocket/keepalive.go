package websocket

import (
	"crypto/rand"
	"errors"

	"github.com/gobwas/ws"

	"github.com/junction-wamp/junction/internal/transport/outbox"
)

// ErrPingTimeout: the peer sent nothing, not even a pong, within the ping
// timeout; Recv returns it after the connection was closed.
var ErrPingTimeout = errors.New("websocket: ping timeout")

// ping queues a ping frame with pingSize random bytes (the peer answers
// with the same payload); called by the keepalive timer.
func (p *Peer) ping() {
	var payload []byte
	if p.cfg.pingSize > 0 {
		payload = make([]byte, p.cfg.pingSize)
		rand.Read(payload)
	}
	p.out.Queue(outbox.Frame{Kind: kindPing, Data: payload})
}

// timeout closes a peer that did not answer a ping.
func (p *Peer) timeout() {
	p.timedOut.Store(true)
	p.closeWith(ws.StatusGoingAway, "ping timeout")
	p.conn.closeNow() // a silent peer would not answer a close handshake

}
