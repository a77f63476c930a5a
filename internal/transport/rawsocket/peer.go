package rawsocket

import (
	"bufio"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/transport/idlepoll"
	"github.com/junction-wamp/junction/internal/transport/idlereader"
	"github.com/junction-wamp/junction/internal/transport/keepalive"
	"github.com/junction-wamp/junction/internal/transport/outbox"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// ErrPingTimeout: the peer sent nothing, not even a pong, within the ping
// timeout; Recv returns it after the connection was closed.
var ErrPingTimeout = errors.New("rawsocket: ping timeout")

// peerConfig is what a negotiated connection needs to become a Peer.
type peerConfig struct {
	codec        codec.Codec
	remote       remote
	sendLimit    int // the other side's maximum message length
	recvLimit    int // ours
	pingInterval time.Duration
	pingTimeout  time.Duration
	outbox       outbox.Options
}

// remote is what Info tells of the other side besides the transport and
// the serializer, which Info adds (constants): kept without their two
// strings, an idle peer fits a smaller size class.
type remote struct {
	addr string            // wamp.PeerInfo.RemoteAddr
	cert *x509.Certificate // wamp.PeerInfo.ClientCert
	tls  bool              // wamp.PeerInfo.TLS
}

// Peer is a WAMP connection over RawSocket. Send and Close are safe for
// concurrent use; Recv is called by one goroutine (the connection's reader).
type Peer struct {
	cfg      peerConfig
	out      *outbox.Outbox
	keep     *keepalive.Timer // nil without a ping interval
	timedOut atomic.Bool
	traffic  wamp.Traffic

	// Parking (see wamp.Parker): park is nil when the peer cannot park;
	// detached once it has parked, the session then ends with Ended,
	// which calls ended.
	park     *idlepoll.Conn
	ended    func()
	detached atomic.Bool

	rd   *idlereader.Reader // the Recv goroutine only
	rhdr [4]byte            // the Recv goroutine only
	whdr [4]byte            // whoever holds the outbox's writing turn
}

var (
	_ wamp.Peer    = (*Peer)(nil)
	_ wamp.Metered = (*Peer)(nil)
)

func newPeer(conn net.Conn, cfg peerConfig) *Peer {
	p := &Peer{cfg: cfg, rd: idlereader.New(conn, nil)}
	ob := cfg.outbox
	ob.Traffic = &p.traffic
	p.out = outbox.New(conn, nil, p.encode, p.writeFrame, ob)
	if cfg.pingInterval > 0 {
		p.keep = keepalive.New(cfg.pingInterval, cfg.pingTimeout, p.ping, p.timeout)
		p.keep.Start()
	}
	return p
}

// Send queues msg; see wamp.Peer. A message over the other side's maximum
// length gives an error wrapping ErrMessageTooBig and a
// *wamp.MessageTooLongError (wamp.ErrMessageTooLong), and is not sent;
// the connection stays open.
func (p *Peer) Send(msg wamp.Message) error { return p.out.Send(msg) }

// AfterFlush calls fn once what was queued before has been written; see
// outbox.Outbox.AfterFlush.
func (p *Peer) AfterFlush(fn func()) { p.out.AfterFlush(fn) }

// Close flushes what is queued, within the outbox's CloseTimeout, and closes
// the connection.
func (p *Peer) Close() error {
	p.keep.Stop()
	return p.out.Close()
}

// Traffic counts the messages' bytes both ways; see wamp.Traffic.
func (p *Peer) Traffic() *wamp.Traffic { return &p.traffic }

// Info describes the connection.
func (p *Peer) Info() wamp.PeerInfo {
	r := &p.cfg.remote
	return wamp.PeerInfo{Transport: "rawsocket", Serializer: p.cfg.codec.Name(), RemoteAddr: r.addr, TLS: r.tls, ClientCert: r.cert}
}

// Recv returns the next message; see wamp.Peer. Pings are answered here.
func (p *Peer) Recv() (wamp.Message, error) {
	for {
		typ, payload, err := readFrame(p.rd, &p.rhdr, p.cfg.recvLimit)
		if err != nil {
			return nil, p.recvError(err)
		}
		p.keep.Seen()
		switch typ {
		case framePing:
			p.out.Queue(outbox.Frame{Kind: framePong, Data: payload})
		case frameMessage:
			p.traffic.Count(len(payload))
			m, err := p.cfg.codec.Decode(payload)
			if err != nil {
				return nil, fmt.Errorf("rawsocket: %w", err)
			}
			return m, nil
		}
	}
}

// recvError turns a read error into Recv's and closes the connection: io.EOF
// for an orderly end (the stream's end, our own Close), framing and size
// errors as they are, otherwise why we closed the connection ourselves
// (slow consumer, write error) or the read error.
func (p *Peer) recvError(err error) error {
	cause := p.out.Err()
	p.Close()
	switch {
	case err == io.EOF:
		return io.EOF
	case errors.Is(err, wamp.ErrProtocol) || errors.Is(err, ErrMessageTooBig):
		return err
	case p.timedOut.Load():
		return ErrPingTimeout
	case cause == wamp.ErrClosed:
		return io.EOF
	case cause != nil:
		return cause
	}
	return fmt.Errorf("rawsocket: read: %w", err)
}

func (p *Peer) encode(m wamp.Message) ([]byte, error) {
	b, err := p.cfg.codec.Encode(m)
	if err == nil && len(b) > p.cfg.sendLimit {
		return nil, fmt.Errorf("%w: %w", ErrMessageTooBig, &wamp.MessageTooLongError{Type: m.Type(), Length: len(b), Limit: p.cfg.sendLimit})
	}
	return b, err
}

// writeFrame runs with the outbox's writing turn; the frame kinds are the
// RawSocket frame types.
func (p *Peer) writeFrame(w *bufio.Writer, f outbox.Frame) error {
	return writeFrame(w, &p.whdr, f.Kind, f.Data)
}

// ping queues a ping; called by the keepalive timer.
func (p *Peer) ping() { p.out.Queue(outbox.Frame{Kind: framePing}) }

// timeout closes a peer that did not answer a ping.
func (p *Peer) timeout() {
	p.timedOut.Store(true)
	p.Close()
}
