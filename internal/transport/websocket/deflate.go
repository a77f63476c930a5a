package websocket

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"

	"github.com/gobwas/httphead"
	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsflate"
)

// Deflate configures permessage-deflate (RFC 7692) for a Handler: a client
// that offers it gets it. Every message is compressed on its own in both
// directions (the server always answers with server_no_context_takeover and
// client_no_context_takeover), so a connection keeps no compression state
// between messages: an idle connection costs nothing more, and the
// compressors and decompressors are shared by all connections.
type Deflate struct {
	// MaxWindowBits, 8..15 (0 means 15), bounds how far back the server's
	// compressed data refers: below 15, a message longer than
	// 2^MaxWindowBits bytes is sent uncompressed. A client's
	// server_max_window_bits lowers it.
	MaxWindowBits int
	// ClientMaxWindowBits, 8..15 (0: not sent), is answered as
	// client_max_window_bits to a client that offers that parameter (8 as
	// 9, which zlib needs).
	ClientMaxWindowBits int
}

// deflateMinSize: shorter messages are sent uncompressed, as compressing
// them rarely saves a byte.
const deflateMinSize = 64

// rsv1 is the header's Rsv value with the "Per-Message Compressed" bit.
var rsv1 = ws.Rsv(true, false, false)

// deflateTail ends a sync-flushed deflate stream: RFC 7692 section 7.2.1
// removes it from a compressed message, section 7.2.2 appends it again
// before decompressing.
var deflateTail = []byte{0, 0, 0xff, 0xff}

// inflateTail is deflateTail and then a final empty block, so that a
// complete message decompresses to its end without error and a truncated
// one is an error (io.ErrUnexpectedEOF).
var inflateTail = []byte{0, 0, 0xff, 0xff, 1, 0, 0, 0xff, 0xff}

// maxPooledDeflate: a deflater's buffer that grew past this is dropped
// before the deflater goes back to the pool (the compressor itself, about
// 1 MB, is worth keeping).
const maxPooledDeflate = 64 << 10

func (d *Deflate) check() error {
	if d.MaxWindowBits != 0 && (d.MaxWindowBits < 8 || d.MaxWindowBits > 15) {
		return fmt.Errorf("websocket: deflate window bits %d are not within 8..15", d.MaxWindowBits)
	}
	if d.ClientMaxWindowBits != 0 && (d.ClientMaxWindowBits < 8 || d.ClientMaxWindowBits > 15) {
		return fmt.Errorf("websocket: deflate client window bits %d are not within 8..15", d.ClientMaxWindowBits)
	}
	return nil
}

// negotiate answers one extension offer of a client: ok with the response
// and the window bits of what the server sends, or not ok to decline it
// (another extension, or permessage-deflate with parameters that are not
// valid).
func (d *Deflate) negotiate(offer httphead.Option) (resp httphead.Option, bits int, ok bool) {
	if !bytes.Equal(offer.Name, wsflate.ExtensionNameBytes) {
		return resp, 0, false
	}
	var p wsflate.Parameters
	if err := p.Parse(offer); err != nil {
		return resp, 0, false
	}
	bits = 15
	if d.MaxWindowBits != 0 {
		bits = d.MaxWindowBits
	}
	answer := wsflate.Parameters{ServerNoContextTakeover: true, ClientNoContextTakeover: true}
	if p.ServerMaxWindowBits.Defined() {
		bits = min(bits, int(p.ServerMaxWindowBits))
		answer.ServerMaxWindowBits = wsflate.WindowBits(bits)
	}
	// The client offered client_max_window_bits, with a value (its upper
	// bound) or without (1). 8 is asked as 9: zlib 1.2.9 and later refuse a
	// raw deflate window of 8, and a window of 9 decompresses both.
	if p.ClientMaxWindowBits.Defined() && d.ClientMaxWindowBits != 0 {
		cb := max(d.ClientMaxWindowBits, 9)
		if p.ClientMaxWindowBits > 1 {
			cb = min(cb, int(p.ClientMaxWindowBits))
		}
		answer.ClientMaxWindowBits = wsflate.WindowBits(cb)
	}
	return answer.Option(), bits, true
}

// negotiator returns the Negotiate function of one upgrade: it accepts the
// first permessage-deflate offer it can and stores in bits the window of
// what the server sends (bits stays 0 while none is accepted).
func (d *Deflate) negotiator(bits *int) func(httphead.Option) (httphead.Option, error) {
	return func(offer httphead.Option) (httphead.Option, error) {
		if *bits != 0 {
			return httphead.Option{}, nil
		}
		resp, b, ok := d.negotiate(offer)
		if ok {
			*bits = b
		}
		return resp, nil
	}
}

// flateReaders and deflaters are shared by every connection: a message is
// decompressed or compressed in one go, so none keeps one between
// messages.
var (
	flateReaders sync.Pool // io.ReadCloser from flate.NewReader
	deflaters    = sync.Pool{New: func() any {
		d := &deflater{}
		d.w, _ = flate.NewWriter(&d.buf, flate.BestSpeed) // no error for a valid level
		return d
	}}
)

type deflater struct {
	buf bytes.Buffer
	w   *flate.Writer
}

// inflate decompresses a message that arrived with the compressed bit, up
// to maxSize bytes: a bigger result fails the connection with 1009, data
// that is not deflate with 1007.
func (p *Peer) inflate(msg []byte) ([]byte, error) {
	src := io.MultiReader(bytes.NewReader(msg), bytes.NewReader(inflateTail))
	fr, _ := flateReaders.Get().(io.ReadCloser)
	if fr == nil {
		fr = flate.NewReader(src)
	} else {
		fr.(flate.Resetter).Reset(src, nil)
	}
	defer func() {
		fr.(flate.Resetter).Reset(bytes.NewReader(nil), nil) // holds msg no longer
		flateReaders.Put(fr)
	}()
	out, err := io.ReadAll(io.LimitReader(fr, int64(p.cfg.maxSize)+1))
	if err != nil {
		return nil, p.fail(ws.StatusInvalidFramePayloadData, "invalid compressed message")
	}
	if len(out) > p.cfg.maxSize {
		p.failWith(ws.StatusMessageTooBig, "message too big")
		return nil, fmt.Errorf("%w: more than %d bytes decompressed", ErrMessageTooBig, p.cfg.maxSize)
	}
	return out, nil
}

// deflate compresses a data frame's payload if compression was negotiated
// and it pays: it returns the compressed bytes and the deflater holding
// them (to be put back with putDeflater once they are written), or nil.
// With a window under 15 bits, a message longer than the window goes
// uncompressed (compress/flate refers back up to 32 KiB, 15 bits).
func (p *Peer) deflate(data []byte) ([]byte, *deflater) {
	bits := p.cfg.deflateBits
	if bits == 0 || len(data) < deflateMinSize || (bits < 15 && len(data) > 1<<bits) {
		return nil, nil
	}
	d := deflaters.Get().(*deflater)
	d.buf.Reset()
	d.w.Reset(&d.buf)
	d.w.Write(data)
	d.w.Flush()
	z := bytes.TrimSuffix(d.buf.Bytes(), deflateTail)
	if len(z) >= len(data) {
		putDeflater(d)
		return nil, nil
	}
	return z, d
}

// putDeflater returns d to the pool, without its buffer if that grew
// large.
func putDeflater(d *deflater) {
	if d.buf.Cap() > maxPooledDeflate {
		d.buf = bytes.Buffer{} // d.w writes to &d.buf, which stays valid
	}
	deflaters.Put(d)
}
