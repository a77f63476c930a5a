package websocket

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/gobwas/ws"

	"github.com/junction-wamp/junction/internal/transport/outbox"
	"github.com/junction-wamp/junction/wamp"
)

// ErrMessageTooBig: an incoming message was over MaxMessageSize; the
// connection was closed with status 1009.
var ErrMessageTooBig = errors.New("websocket: message too big")

// errPeerClosed: the other side sent a close frame.
var errPeerClosed = errors.New("websocket: closed by peer")

// maxControlPayload is the RFC 6455 limit on a control frame's payload.
const maxControlPayload = 125

// readMessage reads frames until a whole data message has arrived, answering
// control frames on the way. Fragments are reassembled up to maxSize.
func (p *Peer) readMessage() ([]byte, error) {
	var msg []byte
	var op ws.OpCode // the message's opcode once its first frame arrived
	compressed := false
	for {
		h, err := ws.ReadHeaderBuffer(p.rd, p.rhdr[:])
		if err != nil {
			return nil, err
		}
		p.keep.Seen()
		if p.cfg.maxFrame > 0 && h.Length > int64(p.cfg.maxFrame) {
			p.failWith(ws.StatusMessageTooBig, "frame too big")
			return nil, fmt.Errorf("%w: a frame of more than %d bytes", ErrMessageTooBig, p.cfg.maxFrame)
		}
		if err := p.checkHeader(h, op); err != nil {
			return nil, err
		}
		if h.OpCode.IsControl() {
			if err := p.readControl(h); err != nil {
				return nil, err
			}
			continue
		}
		if op == 0 {
			op, compressed = h.OpCode, h.Rsv == rsv1
		}
		if msg, err = p.readPayload(h, msg); err != nil {
			return nil, err
		}
		if !h.Fin {
			continue
		}
		if compressed {
			if msg, err = p.inflate(msg); err != nil {
				return nil, err
			}
		}
		return msg, p.checkText(op, msg)
	}
}

// checkHeader rejects what RFC 6455 forbids; op is the opcode of the
// message being reassembled, 0 if none.
func (p *Peer) checkHeader(h ws.Header, op ws.OpCode) error {
	switch {
	case h.Rsv != 0 && !p.compressedStart(h):
		return p.fail(ws.StatusProtocolError, "reserved bits set")
	case h.OpCode.IsReserved():
		return p.fail(ws.StatusProtocolError, "reserved opcode")
	case h.Masked == p.cfg.client:
		return p.fail(ws.StatusProtocolError, "frame masking is wrong for this side")
	case h.OpCode.IsControl() && (!h.Fin || h.Length > maxControlPayload):
		return p.fail(ws.StatusProtocolError, "fragmented or long control frame")
	case h.OpCode == ws.OpContinuation && op == 0:
		return p.fail(ws.StatusProtocolError, "continuation without a message")
	case (h.OpCode == ws.OpText || h.OpCode == ws.OpBinary) && op != 0:
		return p.fail(ws.StatusProtocolError, "new message inside a fragmented one")
	}
	return nil
}

// compressedStart reports whether h is allowed to have the compressed bit:
// the first frame of a data message, with permessage-deflate.
func (p *Peer) compressedStart(h ws.Header) bool {
	return h.Rsv == rsv1 && p.cfg.deflateBits > 0 && (h.OpCode == ws.OpText || h.OpCode == ws.OpBinary)
}

// readPayload appends h's unmasked payload to msg, within maxSize.
func (p *Peer) readPayload(h ws.Header, msg []byte) ([]byte, error) {
	if h.Length > int64(p.cfg.maxSize-len(msg)) {
		p.failWith(ws.StatusMessageTooBig, "message too big")
		return nil, fmt.Errorf("%w: more than %d bytes", ErrMessageTooBig, p.cfg.maxSize)
	}
	n := len(msg)
	if msg == nil && h.Fin {
		msg = make([]byte, h.Length) // the common case: one frame, one allocation
	} else {
		msg = append(msg, make([]byte, h.Length)...)
	}
	if _, err := io.ReadFull(p.rd, msg[n:]); err != nil {
		return nil, err
	}
	if h.Masked {
		ws.Cipher(msg[n:], h.Mask, 0)
	}
	return msg, nil
}

// checkText closes with 1007 a text message that is not UTF-8.
func (p *Peer) checkText(op ws.OpCode, msg []byte) error {
	if op == ws.OpText && !utf8.Valid(msg) {
		return p.fail(ws.StatusInvalidFramePayloadData, "text message is not UTF-8")
	}
	return nil
}

// readControl answers a ping, and a close frame with a normal close (ours,
// whatever valid code the peer sent), or with 1002 when its payload is
// invalid (see checkClose); a pong was already noted as traffic.
func (p *Peer) readControl(h ws.Header) error {
	payload, err := p.readPayload(h, nil)
	if err != nil {
		return err
	}
	switch h.OpCode {
	case ws.OpPing:
		p.out.Queue(outbox.Frame{Kind: kindPong, Data: payload})
	case ws.OpClose:
		p.conn.closeRecv.Store(true)
		if reason := checkClose(payload); reason != "" {
			return p.fail(ws.StatusProtocolError, reason)
		}
		p.closeWith(ws.StatusNormalClosure, "")
		return errPeerClosed
	}
	return nil
}

// checkClose returns what is wrong with a close frame's payload, "" if
// nothing (RFC 6455 sections 5.5.1 and 7.4): empty, or a status code that
// may be sent followed by a UTF-8 reason.
func checkClose(payload []byte) string {
	switch {
	case len(payload) == 0:
		return ""
	case len(payload) == 1:
		return "close frame with a 1-byte payload"
	case !validCloseCode(binary.BigEndian.Uint16(payload)):
		return "close frame with an invalid status code"
	case !utf8.Valid(payload[2:]):
		return "close frame reason is not UTF-8"
	}
	return ""
}

// validCloseCode reports whether code may appear in a close frame: the
// codes defined for the wire (1000-1003, 1007-1011, and 1012-1014 since
// registered by IANA), and those for libraries and applications
// (3000-4999). 1004 is reserved; 1005, 1006 and 1015 are only reported
// locally, never sent; the rest of 0-2999 is unassigned or reserved for
// the protocol, and 5000 and above undefined.
func validCloseCode(code uint16) bool {
	switch {
	case code >= 1000 && code <= 1003, code >= 1007 && code <= 1014:
		return true
	case code >= 3000 && code <= 4999:
		return true
	}
	return false
}

// fail fails the connection (see failWith) and returns the matching
// error, which wraps wamp.ErrProtocol.
func (p *Peer) fail(code ws.StatusCode, reason string) error {
	p.failWith(code, reason)
	return fmt.Errorf("websocket: %s: %w", reason, wamp.ErrProtocol)
}

// failWith closes the connection of a peer that broke the protocol: with a
// close frame carrying code and reason, or with FailByDrop by dropping the
// TCP connection.
func (p *Peer) failWith(code ws.StatusCode, reason string) {
	p.desync.Store(true)
	if p.cfg.failByDrop {
		p.closeNow()
		return
	}
	p.closeWith(code, reason)
}
