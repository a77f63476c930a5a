package websocket

import (
	"bufio"
	"bytes"
	"compress/flate"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gobwas/httphead"
	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsflate"

	"github.com/junction-wamp/junction/internal/wamp/codec"
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

// FuzzMatchGlob checks matchGlob (allowed_origins patterns) against a
// regular expression built from the same pattern, for UTF-8 inputs (the
// reference needs them; UTF-8 being self-synchronizing, matching bytes or
// runes then agree).
func FuzzMatchGlob(f *testing.F) {
	f.Add("https://*.example.com", "https://app.example.com")
	f.Add("*", "")
	f.Add("a*b*c", "abbc")
	f.Add("*.com*", ".com")
	f.Add("x**y", "xy")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if !utf8.ValidString(pattern) || !utf8.ValidString(s) {
			return
		}
		parts := strings.Split(pattern, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		want := regexp.MustCompile("^(?s:" + strings.Join(parts, ".*") + ")$").MatchString(s)
		if got := matchGlob(pattern, s); got != want {
			t.Fatalf("matchGlob(%q, %q) = %v, want %v", pattern, s, got, want)
		}
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

// FuzzProxyRelay feeds a relay any byte stream as the client's: the relay
// must end (the backend answers close frames), and what reaches the backend
// must be the client's frames up to the first one the relay must refuse (or
// up to a close frame), each unchanged and masked afresh, then at most a
// close frame 1001 of the relay's own.
func FuzzProxyRelay(f *testing.F) {
	f.Add(clientFrame(ws.OpText, true, "hello"), uint16(0))
	f.Add(append(clientFrame(ws.OpBinary, false, "frag"), clientFrame(ws.OpContinuation, true, "ment")...), uint16(0))
	f.Add(append(clientFrame(ws.OpPing, true, "hi"), clientFrame(ws.OpClose, true, "\x0f\xa0bye")...), uint16(0))
	f.Add(append(clientFrame(ws.OpText, true, "ok"), clientFrame(ws.OpText, true, "too big")...), uint16(4))
	f.Add([]byte("\x81\x05hello"), uint16(0)) // not masked
	f.Add([]byte{0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2, 3, 4, 5}, uint16(0))
	f.Fuzz(func(t *testing.T, in []byte, maxFrame uint16) {
		r, client, backend := pipeRelay(t, ProxyOptions{MaxFrameSize: int(maxFrame)})
		done := make(chan struct{})
		go func() { r.run(); close(done) }()
		go func() { client.Write(in); client.Close() }()
		go io.Copy(io.Discard, client) // the relay's close frames and the backend's answers
		want := relayable(readFrames(bytes.NewReader(in)), int64(maxFrame))
		br := bufio.NewReader(backend)
		for i := 0; ; i++ {
			got, ok := readFrame(br)
			if !ok {
				break
			}
			if !got.Header.Masked || got.Header.Rsv != 0 {
				t.Fatalf("frame %d reached the backend as %+v", i, got.Header)
			}
			if got.Header.OpCode == ws.OpClose {
				ws.WriteFrame(backend, ws.NewCloseFrame(got.Payload)) // the backend's answer
			}
			if i < len(want) && sameFrame(got, want[i]) {
				continue
			}
			if code, _ := ws.ParseCloseFrameData(got.Payload); got.Header.OpCode != ws.OpClose || code != ws.StatusGoingAway {
				t.Fatalf("frame %d reached the backend as %+v %q, want %+v", i, got.Header, got.Payload, want[i:])
			}
			if _, more := readFrame(br); more {
				t.Fatalf("a frame after the relay's close frame")
			}
			break
		}
		<-done
	})
}

// relayable returns the frames a relay passes on from a client: those
// before the first that breaks the rules (not masked, reserved bits or
// opcode, a long or fragmented control frame, a payload above maxFrame if
// not 0), and up to a close frame.
func relayable(frames []ws.Frame, maxFrame int64) []ws.Frame {
	for i, f := range frames {
		h := f.Header
		if !h.Masked || h.Rsv != 0 || h.OpCode.IsReserved() || h.OpCode.IsControl() && (!h.Fin || h.Length > maxControlPayload) ||
			maxFrame > 0 && h.Length > maxFrame {
			return frames[:i]
		}
		if h.OpCode == ws.OpClose {
			return frames[:i+1]
		}
	}
	return frames
}

// readFrames reads r's complete frames, unmasked.
func readFrames(r io.Reader) []ws.Frame {
	var frames []ws.Frame
	for {
		f, ok := readFrame(r)
		if !ok {
			return frames
		}
		frames = append(frames, f)
	}
}

// readFrame reads a complete frame and unmasks its payload, which grows as
// it arrives, whatever length the header claims.
func readFrame(r io.Reader) (ws.Frame, bool) {
	h, err := ws.ReadHeader(r)
	if err != nil {
		return ws.Frame{}, false
	}
	payload, _ := io.ReadAll(io.LimitReader(r, h.Length))
	if int64(len(payload)) < h.Length {
		return ws.Frame{}, false
	}
	ws.Cipher(payload, h.Mask, 0)
	return ws.Frame{Header: h, Payload: payload}, true
}

func sameFrame(a, b ws.Frame) bool {
	return a.Header.OpCode == b.Header.OpCode && a.Header.Fin == b.Header.Fin && bytes.Equal(a.Payload, b.Payload)
}
