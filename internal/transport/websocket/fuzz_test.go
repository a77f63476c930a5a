package websocket

import (
	"bytes"
	"compress/flate"
	"io"
	"net"
	"testing"

	"github.com/gobwas/httphead"
	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsflate"

	"github.com/junction-wamp/junction/wamp/codec"
)

// clientFrame is a masked frame as a client sends it.
func clientFrame(op ws.OpCode, fin bool, payload string) []byte {
	var b bytes.Buffer
	ws.WriteFrame(&b, ws.MaskFrame(ws.NewFrame(op, fin, []byte(payload))))
	return b.Bytes()
}

// FuzzReadFrames feeds a peer any byte stream as its other side's: Recv
// must return messages or an error, never panic, and end with an error at
// the end of the input. maxFrame, batched, client (a dialed peer, which
// expects unmasked frames) and deflate (permessage-deflate negotiated) vary
// the reader's configuration.
func FuzzReadFrames(f *testing.F) {
	hello := `[1,"realm1",{}]`
	f.Add(clientFrame(ws.OpText, true, hello), uint16(0), false, false, false)
	f.Add(append(clientFrame(ws.OpText, false, hello[:5]), clientFrame(ws.OpContinuation, true, hello[5:])...), uint16(8), false, false, false)
	f.Add(append(clientFrame(ws.OpPing, true, "hi"), clientFrame(ws.OpText, true, hello)...), uint16(0), false, false, false)
	f.Add(clientFrame(ws.OpText, true, hello+"\x18"+hello+"\x18"), uint16(0), true, false, false)
	f.Add(clientFrame(ws.OpClose, true, "\x03\xe8"), uint16(0), false, false, false)
	f.Add(clientFrame(ws.OpText, true, "\xff"), uint16(0), false, false, false)
	f.Add([]byte{0x81, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF}, uint16(0), false, false, false)
	f.Add([]byte("\x81\x0f"+hello), uint16(0), false, true, false) // a server's frame, to a client
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, flate.BestSpeed)
	io.WriteString(fw, hello)
	fw.Flush()
	compressed := ws.MaskFrame(ws.NewFrame(ws.OpText, true, bytes.TrimSuffix(z.Bytes(), deflateTail)))
	compressed.Header.Rsv = rsv1
	var cf bytes.Buffer
	ws.WriteFrame(&cf, compressed)
	f.Add(cf.Bytes(), uint16(0), false, false, true)
	f.Fuzz(func(t *testing.T, in []byte, maxFrame uint16, batched, client, deflate bool) {
		conn, other := net.Pipe()
		defer other.Close()
		go io.Copy(io.Discard, other) // pongs and close frames
		const maxSize = 4096
		p := newPeer(conn, bytes.NewReader(in), nil, peerConfig{
			codec: codec.JSON, batched: batched, client: client, deflateBits: map[bool]int{true: 15}[deflate],
			peerOptions: &peerOptions{maxSize: maxSize, maxFrame: int(maxFrame)},
		})
		defer p.Close()
		for range len(in) + 1 { // each message takes at least one byte
			m, err := p.Recv()
			if err != nil {
				return
			}
			if m == nil {
				t.Fatal("Recv returned no message and no error")
			}
		}
		t.Fatal("Recv did not end at the end of the input")
	})
}

// FuzzDeflateNegotiate: any Sec-WebSocket-Extensions offer either is
// declined or gets a response that parses back as permessage-deflate
// without context takeover, within the offer's window.
func FuzzDeflateNegotiate(f *testing.F) {
	f.Add("permessage-deflate; client_max_window_bits", uint8(0), uint8(12))
	f.Add("permessage-deflate; server_max_window_bits=10; client_no_context_takeover", uint8(9), uint8(0))
	f.Add("x-webkit-deflate-frame, permessage-deflate; client_max_window_bits=8", uint8(15), uint8(8))
	f.Fuzz(func(t *testing.T, header string, serverBits, clientBits uint8) {
		d := Deflate{MaxWindowBits: int(serverBits%9) + 7, ClientMaxWindowBits: int(clientBits%9) + 7}
		if d.MaxWindowBits == 7 {
			d.MaxWindowBits = 0
		}
		if d.ClientMaxWindowBits == 7 {
			d.ClientMaxWindowBits = 0
		}
		offers, ok := httphead.ParseOptions([]byte(header), nil)
		if !ok {
			return
		}
		for _, offer := range offers {
			resp, bits, ok := d.negotiate(offer)
			if !ok {
				continue
			}
			var got, asked wsflate.Parameters
			if err := got.Parse(resp); err != nil {
				t.Fatalf("response %v to %q does not parse: %v", resp, header, err)
			}
			asked.Parse(offer)
			if !got.ServerNoContextTakeover || !got.ClientNoContextTakeover || bits < 8 || bits > 15 ||
				(asked.ServerMaxWindowBits.Defined() && int(asked.ServerMaxWindowBits) < bits) ||
				(got.ClientMaxWindowBits.Defined() && !asked.ClientMaxWindowBits.Defined()) {
				t.Fatalf("offer %q: response %+v with %d bits", header, got, bits)
			}
		}
	})
}
