package web

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"
)

// Timing and sizes of a WebSocketProxy's relays.
const (
	// relayCloseTimeout is how long a relay waits for the answer to a close
	// frame it relayed, and how long writing a close frame of its own may
	// take.
	relayCloseTimeout = 5 * time.Second
	// relayStallTimeout is how long a write to a side may make no
	// progress: a peer that stops reading ends its relay after it, instead
	// of holding two connections and two goroutines forever.
	relayStallTimeout = 30 * time.Second
	// relayBufferSize is each side's read and write buffer; payloads are
	// copied through the write buffer in chunks of at most this size.
	relayBufferSize = 4096
)

// errSideClosed: a frame for a side that had its close frame, or a frame
// cut short.
var errSideClosed = errors.New("web: websocket-reverseproxy: side closed for writing")

// relay is one proxied connection. A pump goroutine per direction reads
// the frames of one side, the only reader of it, and writes them to the
// other. The relay's own close frames are written by the one goroutine that
// stops it (see fail), under the side's write lock.
type relay struct {
	proxy           *WebSocketProxy
	client, backend *side
	log             *slog.Logger

	stopping atomic.Bool // fail or end has begun: other stops return at once

	mu     sync.Mutex
	closes int         // close frames relayed; under mu
	timer  *time.Timer // ends a close handshake that takes too long; under mu
	ended  bool        // the connections were closed; under mu
}

// run relays until both pumps are over.
func (r *relay) run() {
	var wg sync.WaitGroup
	wg.Go(func() { r.pump(r.backend, r.client) })
	r.pump(r.client, r.backend)
	wg.Wait()
}

// pump relays src's frames to dst until src's close frame has passed or
// the relay fails or ends.
func (r *relay) pump(src, dst *side) {
	for {
		h, err := ws.ReadHeaderBuffer(src.rd, src.rhdr[:])
		if errors.Is(err, ws.ErrHeaderLengthMSB) {
			r.fail(src, ws.StatusProtocolError, "bad frame length")
			return
		}
		if err != nil {
			r.stop(src.name + ": " + err.Error())
			return
		}
		if code, reason := src.check(h, r.proxy.opts.MaxFrameSize); code != 0 {
			r.fail(src, code, reason)
			return
		}
		if err := dst.relayFrame(h, src.rd); err != nil {
			r.stop(src.name + " to " + dst.name + ": " + err.Error())
			return
		}
		if h.OpCode == ws.OpClose {
			r.closeRelayed()
			return
		}
	}
}

// closeRelayed ends the relay once close frames have passed both ways, or
// relayCloseTimeout after the first one.
func (r *relay) closeRelayed() {
	r.mu.Lock()
	r.closes++
	both := r.closes == 2
	if !both && !r.ended {
		r.timer = time.AfterFunc(relayCloseTimeout, func() { r.end("close handshake timed out") })
	}
	r.mu.Unlock()
	if both {
		r.end("close handshake done")
	}
}

// stop ends the relay after a close frame 1001 (going away) to each side
// that can still take one.
func (r *relay) stop(cause string) {
	r.fail(nil, 0, cause)
}

// fail ends the relay after side bad, if not nil, broke the protocol: bad
// gets a close frame with code and reason, each other side that can still
// take one 1001. Only the first call (or end) runs: the pumps' own errors
// while a stop is under way are its doing. The pumps' reads are interrupted
// first, so that a frame whose sender stalls is cut short and frees its
// side's write lock (that side then gets no close frame).
func (r *relay) fail(bad *side, code ws.StatusCode, reason string) {
	if !r.stopping.CompareAndSwap(false, true) {
		return
	}
	now := time.Now()
	r.client.conn.SetReadDeadline(now)
	r.backend.conn.SetReadDeadline(now)
	cause := reason
	if bad != nil {
		bad.sendClose(code, reason)
		cause = bad.name + ": " + reason
	}
	r.client.sendClose(ws.StatusGoingAway, "")
	r.backend.sendClose(ws.StatusGoingAway, "")
	r.end(cause)
}

// end closes both connections, which ends the pumps; later calls do
// nothing.
func (r *relay) end(cause string) {
	r.stopping.Store(true)
	r.mu.Lock()
	ended := r.ended
	r.ended = true
	if r.timer != nil {
		r.timer.Stop()
	}
	r.mu.Unlock()
	if ended {
		return
	}
	r.client.conn.Close()
	r.backend.conn.Close()
	r.proxy.remove(r)
	r.log.Debug("web: websocket-reverseproxy: relay ended", "cause", cause)
}

// side is one end of a relay: the client, whose frames come masked and
// go to it unmasked, or the backend, the other way round.
type side struct {
	name  string // "client" or "backend", for logs
	conn  net.Conn
	masks bool // the side masks its frames: the client

	// Reader state: the pump reading this side only.
	rd   *bufio.Reader
	rhdr [ws.MaxHeaderSize]byte

	// Writer state, under wmu, which is held while a frame is written.
	wmu    sync.Mutex
	w      *bufio.Writer
	whdr   [ws.MaxHeaderSize]byte
	closed bool // a close frame was written, or a frame cut short: nothing may follow
	// limit bounds each write to conn (a time.Duration): relayStallTimeout,
	// relayCloseTimeout once the relay is closing.
	limit atomic.Int64
}

// newSide wraps conn; pending are bytes of conn's stream that the handshake
// read ahead.
func newSide(name string, conn net.Conn, pending []byte, masks bool) *side {
	rd := bufio.NewReaderSize(conn, relayBufferSize)
	if len(pending) > 0 {
		rd = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(pending), conn), relayBufferSize)
	}
	s := &side{name: name, conn: conn, masks: masks, rd: rd}
	s.limit.Store(int64(relayStallTimeout))
	s.w = bufio.NewWriterSize(sideWriter{s}, relayBufferSize)
	return s
}

// sideWriter writes to a side's connection, each write bounded by the
// side's current time limit.
type sideWriter struct{ s *side }

func (w sideWriter) Write(b []byte) (int, error) {
	w.s.conn.SetWriteDeadline(time.Now().Add(time.Duration(w.s.limit.Load())))
	return w.s.conn.Write(b)
}

// check returns the close status and reason for a frame header from s
// that breaks the protocol, 0 for a good one. No extension is negotiated,
// so the reserved bits must be 0.
func (s *side) check(h ws.Header, maxFrame int) (ws.StatusCode, string) {
	switch {
	case maxFrame > 0 && h.Length > int64(maxFrame):
		return ws.StatusMessageTooBig, "frame too big"
	case h.Masked != s.masks:
		return ws.StatusProtocolError, "frame masking is wrong for this side"
	case h.Rsv != 0:
		return ws.StatusProtocolError, "reserved bits set"
	case h.OpCode.IsReserved():
		return ws.StatusProtocolError, "reserved opcode"
	case h.OpCode.IsControl() && (!h.Fin || h.Length > ws.MaxControlFramePayloadSize):
		return ws.StatusProtocolError, "fragmented or long control frame"
	}
	return 0, ""
}

// relayFrame writes a frame from the other side to s: see writeFrame.
func (s *side) relayFrame(h ws.Header, src io.Reader) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.writeFrame(h, src)
}

// sendClose writes a close frame to s, within relayCloseTimeout, unless s had
// one or a frame to it was cut short. Errors are left to the relay's end.
func (s *side) sendClose(code ws.StatusCode, reason string) {
	s.limit.Store(int64(relayCloseTimeout))
	s.conn.SetWriteDeadline(time.Now().Add(relayCloseTimeout)) // also bounds a frame being written
	s.wmu.Lock()
	defer s.wmu.Unlock()
	body := ws.NewCloseFrameBody(code, reason)
	s.writeFrame(ws.Header{Fin: true, OpCode: ws.OpClose, Length: int64(len(body))}, bytes.NewReader(body))
}

// writeFrame writes a frame with h's opcode, FIN and length to s, its
// payload streamed from src (unmasked with h's mask if h.Masked) and masked
// afresh if s is the backend. s.wmu must be held.
func (s *side) writeFrame(h ws.Header, src io.Reader) error {
	if s.closed {
		return errSideClosed
	}
	s.closed = true // until the frame is whole
	out := h
	out.Masked, out.Mask = !s.masks, [4]byte{}
	if out.Masked {
		out.Mask = ws.NewMask()
	}
	if err := ws.WriteHeaderBuffer(s.w, out, s.whdr[:]); err != nil {
		return err
	}
	if err := s.copyPayload(src, h, out); err != nil {
		return err
	}
	if err := s.w.Flush(); err != nil {
		return err
	}
	s.closed = h.OpCode == ws.OpClose
	return nil
}

// copyPayload streams the payload of a frame with header in from src into
// s.w, a chunk of its free space at a time, unmasked with in's mask and
// masked with out's. s.wmu must be held.
func (s *side) copyPayload(src io.Reader, in, out ws.Header) error {
	for off := int64(0); off < in.Length; {
		if s.w.Available() == 0 {
			if err := s.w.Flush(); err != nil {
				return err
			}
		}
		chunk := s.w.AvailableBuffer()
		chunk = chunk[:min(int64(cap(chunk)), in.Length-off)]
		if _, err := io.ReadFull(src, chunk); err != nil {
			return err
		}
		if in.Masked {
			ws.Cipher(chunk, in.Mask, int(off%4))
		}
		if out.Masked {
			ws.Cipher(chunk, out.Mask, int(off%4))
		}
		s.w.Write(chunk) // into the buffer it came from
		off += int64(len(chunk))
	}
	return nil
}
