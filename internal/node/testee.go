package node

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"

	"github.com/junction-wamp/junction/internal/config"
)

// testeeHandshakeTimeout bounds a testee client's TLS and WebSocket
// opening handshakes.
const testeeHandshakeTimeout = 10 * time.Second

// testeeServer answers the connections of a "websocket-testee" worker: a
// WebSocket echo server for the Autobahn test suite. It upgrades every
// connection whatever subprotocols it offers (choosing none, as
// Crossbar's testee does) and sends each text and binary message back
// with its opcode, answers pings with pongs and a close frame with a close
// frame, and closes with 1009 a message over maxSize, 1007 a text message
// that is not UTF-8 and 1002 a framing error.
type testeeServer struct {
	maxSize int
	log     *slog.Logger
}

// serveConn upgrades one connection and echoes its messages until it
// closes.
func (s *testeeServer) serveConn(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(testeeHandshakeTimeout))
	if _, err := (ws.Upgrader{}).Upgrade(c); err != nil {
		s.log.Debug("websocket-testee: opening handshake failed", "remote", c.RemoteAddr().String(), "err", err)
		return
	}
	_ = c.SetDeadline(time.Time{})
	err := s.echo(c)
	if code, reason := closeStatusOf(err); code != 0 {
		frame := ws.NewCloseFrame(ws.NewCloseFrameBody(code, reason))
		if werr := ws.WriteFrame(c, frame); werr != nil {
			s.log.Debug("websocket-testee: close frame not sent", "remote", c.RemoteAddr().String(), "err", werr)
		}
		awaitPeerClose(c)
	}
	s.log.Debug("websocket-testee: connection ended", "remote", c.RemoteAddr().String(), "err", err)
}

// echo sends every data message of c back until the connection ends: its
// error is a wsutil.ClosedError after the close handshake.
func (s *testeeServer) echo(c net.Conn) error {
	ctl := wsutil.ControlFrameHandler(c, ws.StateServerSide)
	rd := &wsutil.Reader{Source: c, State: ws.StateServerSide, CheckUTF8: true,
		MaxMessageSize: int64(s.maxSize), OnIntermediate: ctl}
	for {
		hdr, err := rd.NextFrame()
		if err != nil {
			return err
		}
		if hdr.OpCode.IsControl() {
			if err := ctl(hdr, rd); err != nil {
				return err
			}
			continue
		}
		msg, err := io.ReadAll(rd)
		if err != nil {
			return err
		}
		if err := wsutil.WriteServerMessage(c, hdr.OpCode, msg); err != nil {
			return err
		}
	}
}

// awaitPeerClose discards what the peer still sends after our close frame
// (its close frame among it: the stream may not be parseable any more)
// until it ends the stream, for at most config.DefaultCloseHandshakeTimeout:
// closing with unread data would reset the connection, and the reset can
// destroy the close frame before the peer reads it (RFC 6455 section
// 7.1.1 has the server close TCP after both close frames).
func awaitPeerClose(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(config.DefaultCloseHandshakeTimeout))
	_, _ = io.Copy(io.Discard, c)
}

// closeStatusOf is the close frame that ends a connection after err: 0
// when none is sent (the close handshake is done, or the connection is
// broken).
func closeStatusOf(err error) (ws.StatusCode, string) {
	var perr ws.ProtocolError
	switch {
	case errors.Is(err, wsutil.ErrMessageTooLarge):
		return ws.StatusMessageTooBig, "message too big"
	case errors.Is(err, wsutil.ErrInvalidUTF8):
		return ws.StatusInvalidFramePayloadData, "text message is not UTF-8"
	case errors.As(err, &perr):
		return ws.StatusProtocolError, string(perr)
	}
	return 0, ""
}

// testeeWorker builds the listener of a "websocket-testee" worker.
func (b *builder) testeeWorker(path string, w *config.TesteeWorker) {
	if w.Options.Disabled {
		b.log.Info("worker disabled", "worker", path)
		return
	}
	tp := path + ".transport"
	var errs config.Errors
	spec, err := b.listenSpecOf(w.Transport.Endpoint)
	if err != nil {
		errs = append(errs, fieldError(tp+".endpoint", err))
	}
	log := b.log.With("transport", tp)
	ts := &testeeServer{maxSize: w.Transport.MaxMessageSize, log: log}
	srv := newConnServer("websocket-testee", log, ts.serveConn)
	if t := w.Transport.Endpoint.TLS; t != nil {
		if srv.tls, err = b.serverTLS(t).Load(); err != nil {
			errs = append(errs, fieldError(tp+".endpoint.tls", err))
		}
	}
	if len(errs) > 0 {
		b.fail(errs)
		return
	}
	logEndpoint(b.log, tp, w.Transport.Endpoint)
	l := &listenerUnit{path: tp, kind: "websocket-testee", spec: spec, srv: srv, limits: b.limitsOf(tp, w.Transport.Endpoint)}
	l.services = append(l.services, serviceLog{"websocket-testee: echoes WebSocket messages",
		[]any{"max_message_size", w.Transport.MaxMessageSize}})
	b.node.listeners = append(b.node.listeners, l)
}
