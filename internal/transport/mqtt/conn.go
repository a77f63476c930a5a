package mqtt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/transport/outbox"
	"github.com/junction-wamp/junction/internal/transport/tlsconn"
	"github.com/junction-wamp/junction/wamp"
)

// inbound is what the reader goroutine hands Recv: a message or the error
// that ended the connection.
type inbound struct {
	msg wamp.Message
	err error
}

// Conn is one MQTT connection as a WAMP session's peer: Recv returns the
// WAMP messages its packets translate to (HELLO from CONNECT, PUBLISH,
// SUBSCRIBE, ...), Send translates the router's messages back (CONNACK
// from WELCOME, PUBACK from PUBLISHED, PUBLISH from EVENT). Send and Close
// are safe for concurrent use; Recv is called by one goroutine.
type Conn struct {
	h    *Handler
	conn net.Conn
	rd   *bufio.Reader // the reader goroutine only
	out  *outbox.Outbox
	info wamp.PeerInfo
	log  *slog.Logger

	ctx    context.Context // cancelled by Close; bounds encoder/decoder calls
	cancel context.CancelFunc

	in       chan inbound     // reader goroutine -> Recv
	joined   chan byte        // the CONNACK code, sent once by Send
	events   chan *wamp.Event // to the encoder goroutine; nil without dynamic mappings
	password []byte           // written before HELLO is handed over, read by Send(CHALLENGE)
	keep     time.Duration    // the reader's idle limit, 1.5 x the keep alive; 0 for none
	will     bool             // a will was left as a testament (the reader goroutine only)
	reqID    atomic.Uint64    // WAMP request IDs
	ctlReady chan struct{}    // signals ctl
	stopped  sync.WaitGroup   // the reader and encoder goroutines
	closing  sync.Once

	mu      sync.Mutex // guards the fields below
	ctl     []wamp.Message
	pubs    map[wamp.ID]uint16 // QoS 1 PUBLISH request -> MQTT packet ID
	subReqs map[wamp.ID]subReq // SUBSCRIBE request -> its place in a SUBACK
	filters map[string]wamp.ID // MQTT topic filter -> WAMP subscription
	topics  map[wamp.ID]wamp.URI
}

// subReq is one topic filter of a SUBSCRIBE waiting for the router.
type subReq struct {
	ack    *subAck
	i      int
	filter string
	uri    wamp.URI
}

// subAck is a SUBACK being assembled: one code per topic filter.
type subAck struct {
	packetID uint16
	codes    []byte
	pending  int
}

var _ wamp.Peer = (*Conn)(nil)

func newConn(h *Handler, conn net.Conn) *Conn {
	c := &Conn{h: h, conn: conn, rd: bufio.NewReader(conn), log: h.log.With("remote", conn.RemoteAddr().String()),
		in: make(chan inbound), joined: make(chan byte, 1), ctlReady: make(chan struct{}, 1),
		pubs: map[wamp.ID]uint16{}, subReqs: map[wamp.ID]subReq{}, filters: map[string]wamp.ID{}, topics: map[wamp.ID]wamp.URI{}}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.info = wamp.PeerInfo{Transport: "mqtt", RemoteAddr: conn.RemoteAddr().String()}
	c.info.TLS, c.info.ClientCert = tlsconn.ClientCert(conn) // the handshake is done: see ServeConn
	c.out = outbox.New(conn, nil, nil, writePacket, h.opts.Outbox)
	return c
}

// writePacket writes a queued packet, already framed.
func writePacket(w *bufio.Writer, f outbox.Frame) error {
	_, err := w.Write(f.Data)
	return err
}

// queue queues an encoded packet.
func (c *Conn) queue(b []byte) error { return c.out.Queue(outbox.Frame{Data: b}) }

// Info describes the connection.
func (c *Conn) Info() wamp.PeerInfo { return c.info }

// Close closes the connection, after what is queued is written (within
// the outbox's CloseTimeout).
func (c *Conn) Close() error {
	c.closing.Do(func() {
		c.cancel()
		c.out.Close()
	})
	return nil
}

// Recv returns the next message for the router; see wamp.Peer.
func (c *Conn) Recv() (wamp.Message, error) {
	for {
		if m := c.popCtl(); m != nil {
			return m, nil
		}
		select {
		case <-c.ctlReady:
		case r := <-c.in:
			if r.err != nil {
				c.Close()
				return nil, r.err
			}
			return r.msg, nil
		case <-c.ctx.Done():
			return nil, io.EOF
		}
	}
}

func (c *Conn) popCtl() wamp.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ctl) == 0 {
		return nil
	}
	m := c.ctl[0]
	c.ctl = c.ctl[1:]
	return m
}

// pushCtl hands Recv a message made on Send's side (AUTHENTICATE).
func (c *Conn) pushCtl(m wamp.Message) {
	c.mu.Lock()
	c.ctl = append(c.ctl, m)
	c.mu.Unlock()
	select {
	case c.ctlReady <- struct{}{}:
	default:
	}
}

// push hands Recv a message from the reader goroutine; false once the
// connection is closed.
func (c *Conn) push(m wamp.Message) bool {
	select {
	case c.in <- inbound{msg: m}:
		return true
	case <-c.ctx.Done():
		return false
	}
}

func (c *Conn) nextID() wamp.ID { return wamp.ID(c.reqID.Add(1)) }

// readLoop is the reader goroutine: CONNECT, then packets until the end,
// whose cause Recv returns (io.EOF for DISCONNECT or a clean close).
func (c *Conn) readLoop() {
	defer c.stopped.Done()
	err := c.handshake()
	for err == nil {
		err = c.next()
	}
	if errors.Is(err, net.ErrClosed) || c.ctx.Err() != nil {
		err = io.EOF
	}
	if err != io.EOF {
		c.log.Info("mqtt: closing the connection", "err", err)
	}
	select {
	case c.in <- inbound{err: err}:
	case <-c.ctx.Done():
	}
}

// read reads the next packet within the keep alive.
func (c *Conn) read() (packet, error) {
	if c.keep > 0 {
		c.conn.SetReadDeadline(time.Now().Add(c.keep))
	}
	p, err := readPacket(c.rd, c.h.opts.MaxMessageSize)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return p, fmt.Errorf("mqtt: nothing received within 1.5 times the keep alive (%s)", c.keep)
	}
	return p, err
}

// next reads and handles one packet.
func (c *Conn) next() error {
	p, err := c.read()
	if err != nil {
		return err
	}
	switch p.typ {
	case typePublish:
		return c.handlePublish(p)
	case typeSubscribe:
		return c.handleSubscribe(p)
	case typeUnsubscribe:
		return c.handleUnsubscribe(p)
	case typePingreq:
		return c.queue(pingrespPacket())
	case typeDisconnect:
		return c.disconnect()
	case typePuback, typePubrec, typePubrel, typePubcomp:
		_, err := parsePacketID(p) // we deliver at QoS 0: nothing to acknowledge
		return err
	}
	return malformed("unexpected packet type %d", p.typ)
}

// disconnect ends the connection on DISCONNECT: the will is discarded
// (MQTT 3.1.2.5), so its testament is flushed first.
func (c *Conn) disconnect() error {
	if c.will {
		c.push(&wamp.Call{Request: c.nextID(), Options: wamp.Dict{}, Procedure: "wamp.session.flush_testaments"})
	}
	return io.EOF
}
