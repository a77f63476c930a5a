package websocket

import (
	"bufio"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"

	"github.com/junction-wamp/junction/internal/transport/idlepoll"
	"github.com/junction-wamp/junction/internal/transport/keepalive"
	"github.com/junction-wamp/junction/internal/transport/outbox"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// Frame kinds queued in the outbox.
const (
	kindData  = outbox.KindData
	kindPing  = uint8(ws.OpPing)
	kindPong  = uint8(ws.OpPong)
	kindClose = uint8(ws.OpClose)
)

// peerConfig is what a server or client connection needs to become a Peer:
// its own settings, and the options it shares with the other connections of
// its Handler (kept once, not in every idle connection).
type peerConfig struct {
	codec   codec.Codec
	remote  remote
	batched bool
	client  bool // masks the frames it sends and expects unmasked ones
	// deflateBits is the window of what the server compresses when the
	// client accepted permessage-deflate; 0 without.
	deflateBits int
	*peerOptions
}

// remote is what Info tells of the other side besides the transport and
// the serializer, which Info adds (constants): kept without their two
// strings, an idle peer fits a smaller size class.
type remote struct {
	addr    string            // wamp.PeerInfo.RemoteAddr
	cbtid   string            // wamp.PeerInfo.CBTID
	headers map[string]string // wamp.PeerInfo.HTTPHeaders
	cert    *x509.Certificate // wamp.PeerInfo.ClientCert
	tls     bool              // wamp.PeerInfo.TLS
}

// peerOptions are the settings shared by a Handler's connections (or a
// Dial's one), see Options. Read only once a Peer uses them.
type peerOptions struct {
	maxSize      int
	pingInterval time.Duration
	pingTimeout  time.Duration
	outbox       outbox.Options
	// Server options.
	maxFrame   int
	fragment   int
	pingSize   int
	failByDrop bool
	closeWait  time.Duration
}

// Peer is a WAMP connection over WebSocket. Send and Close are safe for
// concurrent use; Recv is called by one goroutine (the connection's reader).
type Peer struct {
	cfg  peerConfig
	conn lingerConn
	out  *outbox.Outbox
	keep *keepalive.Timer // nil without PingInterval

	traffic wamp.Traffic

	// Reader state: the Recv goroutine only.
	rd    io.Reader
	batch [][]byte // messages left from a batched frame

	// Parking (see wamp.Parker): park is nil when the peer cannot park;
	// detached (below) once it has parked, the session then ends with Ended,
	// which calls ended.
	park  *idlepoll.Conn
	ended func()

	// Writer state: whoever holds the outbox's writing turn (its writer
	// goroutine, or a sender writing directly), one at a time.
	wbuf *[maskChunk]byte // masking scratch (client only)

	// The small fields side by side (the Peer fits 320 bytes): the frame
	// header scratch of the reader (the Recv goroutine only) and of the
	// writer (whoever holds the writing turn), and the flags.
	rhdr     [ws.MaxHeaderSize]byte
	whdr     [ws.MaxHeaderSize]byte
	timedOut atomic.Bool // closed by the keepalive
	desync   atomic.Bool // the reader failed the connection mid-frame
	detached atomic.Bool // parked once (see park)
}

var (
	_ wamp.Peer    = (*Peer)(nil)
	_ wamp.Metered = (*Peer)(nil)
)

// newPeer wraps an upgraded connection. rd reads from conn (it may hold bytes
// already received); bw, if not nil, is the write buffer to use.
func newPeer(conn net.Conn, rd io.Reader, bw *bufio.Writer, cfg peerConfig) *Peer {
	if cfg.peerOptions == nil || cfg.maxSize <= 0 {
		cfg.peerOptions = cfg.peerOptions.withDefaults()
	}
	p := &Peer{cfg: cfg, rd: rd, conn: lingerConn{Conn: conn, wait: cfg.closeWait}}
	ob := cfg.outbox // a copy: cfg's options are shared by the Handler's peers
	ob.Traffic = &p.traffic
	p.out = outbox.New(&p.conn, bw, p.encode, p.writeFrame, ob)
	if cfg.pingInterval > 0 {
		p.keep = keepalive.New(cfg.pingInterval, cfg.pingTimeout, p.ping, p.timeout)
		p.keep.Start()
	}
	return p
}

// withDefaults returns o (a copy when it changes), with the default
// message size when it has none.
func (o *peerOptions) withDefaults() *peerOptions {
	c := peerOptions{}
	if o != nil {
		c = *o
	}
	if c.maxSize > 0 {
		return o
	}
	c.maxSize = DefaultMaxMessageSize
	return &c
}

// Send queues msg; see wamp.Peer.
func (p *Peer) Send(msg wamp.Message) error { return p.out.Send(msg) }

// AfterFlush calls fn once what was queued before has been written; see
// outbox.Outbox.AfterFlush.
func (p *Peer) AfterFlush(fn func()) { p.out.AfterFlush(fn) }

// Close sends a normal close frame, flushes what is queued within the
// outbox's CloseTimeout and closes the connection.
func (p *Peer) Close() error {
	return p.closeWith(ws.StatusNormalClosure, "")
}

// closeWith sends a close frame with code and reason, then closes (see
// lingerConn for the close handshake timeout).
func (p *Peer) closeWith(code ws.StatusCode, reason string) error {
	p.keep.Stop()
	return p.out.CloseWith(&outbox.Frame{Kind: kindClose, Data: ws.NewCloseFrameBody(code, reason)})
}

// Info describes the connection.
func (p *Peer) Info() wamp.PeerInfo {
	r := &p.cfg.remote
	return wamp.PeerInfo{
		Transport: "websocket", Serializer: p.cfg.codec.Name(), RemoteAddr: r.addr, TLS: r.tls,
		HTTPHeaders: r.headers, ClientCert: r.cert, CBTID: r.cbtid,
	}
}

// Recv returns the next message; see wamp.Peer.
func (p *Peer) Recv() (wamp.Message, error) {
	if p.conn.closeSent.Load() {
		p.batch = nil
	}
	for len(p.batch) == 0 {
		data, err := p.readMessage()
		if err == nil && p.conn.closeSent.Load() {
			// We sent our close frame (RFC 6455 section 5.5.1): what the
			// peer sends now is not for the session (awaitClose drains it).
			err = io.EOF
		}
		if err != nil {
			return nil, p.recvError(err)
		}
		if !p.cfg.batched {
			return p.decode(data)
		}
		if p.batch, err = codec.SplitBatch(p.cfg.codec, data); err != nil {
			return nil, fmt.Errorf("websocket: %w", err)
		}
	}
	data := p.batch[0]
	p.batch[0] = nil
	p.batch = p.batch[1:]
	return p.decode(data)
}

// Traffic counts the messages' bytes both ways; see wamp.Traffic.
func (p *Peer) Traffic() *wamp.Traffic { return &p.traffic }

func (p *Peer) decode(data []byte) (wamp.Message, error) {
	p.traffic.Count(len(data))
	m, err := p.cfg.codec.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("websocket: %w", err)
	}
	return m, nil
}

// recvError turns a read error into Recv's and makes sure the connection is
// closed, or lingering for the peer's close frame (see lingerConn). It
// returns io.EOF for an orderly end (a close frame, the stream's end, our
// own Close), framing and size errors as they are, otherwise why we closed
// the connection ourselves (slow consumer, write error) or the read error.
func (p *Peer) recvError(err error) error {
	cause := p.out.Err()
	if p.conn.lingering() {
		p.keep.Stop() // awaitClose ends the connection
	} else {
		p.closeNow()
	}
	switch {
	case errors.Is(err, errPeerClosed) || err == io.EOF:
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
	return fmt.Errorf("websocket: read: %w", err)
}

// closeNow closes without a close frame, after the connection broke, the
// peer's close frame arrived, or the peer broke the protocol with
// FailByDrop.
func (p *Peer) closeNow() {
	p.keep.Stop()
	p.out.CloseWith(nil)
	p.conn.closeNow()
}

// encode turns a message into a data frame's payload.
func (p *Peer) encode(m wamp.Message) ([]byte, error) {
	b, err := p.cfg.codec.Encode(m)
	if err != nil || !p.cfg.batched {
		return b, err
	}
	return codec.AppendBatch(p.cfg.codec, nil, b), nil
}
