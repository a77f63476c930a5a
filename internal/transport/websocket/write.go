package websocket

import (
	"bufio"
	"encoding/binary"

	"github.com/gobwas/ws"

	"github.com/junction-wamp/junction/internal/transport/outbox"
)

// maskChunk is the scratch size for masking a client frame's payload, which
// must not be masked in place (the bytes may be shared between peers).
const maskChunk = 512

// writeFrame writes one queued frame into w: a data frame compressed when
// permessage-deflate was negotiated and it pays, and longer than the
// fragment size as several frames. It runs with the outbox's writing turn
// (on its writer goroutine, or on a sender's writing directly), one call at
// a time.
func (p *Peer) writeFrame(w *bufio.Writer, f outbox.Frame) error {
	op, data, rsv := p.opcode(f.Kind), f.Data, byte(0)
	if f.Kind == kindData {
		if z, d := p.deflate(data); d != nil {
			defer putDeflater(d) // z is written into w before
			data, rsv = z, rsv1
		}
	}
	if f.Kind == kindData && p.cfg.fragment > 0 {
		for len(data) > p.cfg.fragment {
			if err := p.writeOne(w, ws.Header{OpCode: op, Rsv: rsv, Length: int64(p.cfg.fragment)}, data[:p.cfg.fragment]); err != nil {
				return err
			}
			op, data, rsv = ws.OpContinuation, data[p.cfg.fragment:], 0
		}
	}
	err := p.writeOne(w, ws.Header{Fin: true, OpCode: op, Rsv: rsv, Length: int64(len(data))}, data)
	if f.Kind == kindClose && err == nil {
		p.conn.closeSent.Store(true)
	}
	return err
}

// writeOne writes one frame with header h and payload data, masked on the
// client side.
func (p *Peer) writeOne(w *bufio.Writer, h ws.Header, data []byte) error {
	if p.cfg.client {
		h.Masked, h.Mask = true, ws.NewMask()
	}
	w.Write(p.appendHeader(p.whdr[:0], h))
	if !h.Masked {
		_, err := w.Write(data)
		return err
	}
	return p.writeMasked(w, data, h.Mask)
}

func (p *Peer) opcode(kind uint8) ws.OpCode {
	if kind != kindData {
		return ws.OpCode(kind)
	}
	if p.cfg.codec.Binary() {
		return ws.OpBinary
	}
	return ws.OpText
}

// appendHeader appends h's wire form (RFC 6455 section 5.2) to b.
func (p *Peer) appendHeader(b []byte, h ws.Header) []byte {
	first := byte(h.OpCode) | h.Rsv<<4
	if h.Fin {
		first |= 0x80
	}
	var mask byte
	if h.Masked {
		mask = 0x80
	}
	switch {
	case h.Length < 126:
		b = append(b, first, mask|byte(h.Length))
	case h.Length <= 0xFFFF:
		b = append(b, first, mask|126)
		b = binary.BigEndian.AppendUint16(b, uint16(h.Length))
	default:
		b = append(b, first, mask|127)
		b = binary.BigEndian.AppendUint64(b, uint64(h.Length))
	}
	if h.Masked {
		b = append(b, h.Mask[:]...)
	}
	return b
}

// writeMasked writes data masked with mask through a scratch buffer.
func (p *Peer) writeMasked(w *bufio.Writer, data []byte, mask [4]byte) error {
	if p.wbuf == nil {
		p.wbuf = new([maskChunk]byte)
	}
	for off := 0; off < len(data); off += maskChunk {
		n := copy(p.wbuf[:], data[off:])
		ws.Cipher(p.wbuf[:n], mask, off)
		if _, err := w.Write(p.wbuf[:n]); err != nil {
			return err
		}
	}
	return nil
}
