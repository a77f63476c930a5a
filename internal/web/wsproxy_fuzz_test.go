package web

import (
	"bufio"
	"bytes"
	"io"
	"testing"

	"github.com/gobwas/ws"
)

// clientFrame is a masked frame as a client sends it.
func clientFrame(op ws.OpCode, fin bool, payload string) []byte {
	return frameBytes(ws.MaskFrame(ws.NewFrame(op, fin, []byte(payload))))
}

// FuzzWebSocketProxyRelay feeds a relay any byte stream as the client's: the relay
// must end (the backend answers close frames), and what reaches the backend
// must be the client's frames up to the first one the relay must refuse (or
// up to a close frame), each unchanged and masked afresh, then at most a
// close frame 1001 of the relay's own.
func FuzzWebSocketProxyRelay(f *testing.F) {
	f.Add(clientFrame(ws.OpText, true, "hello"), uint16(0))
	f.Add(append(clientFrame(ws.OpBinary, false, "frag"), clientFrame(ws.OpContinuation, true, "ment")...), uint16(0))
	f.Add(append(clientFrame(ws.OpPing, true, "hi"), clientFrame(ws.OpClose, true, "\x0f\xa0bye")...), uint16(0))
	f.Add(append(clientFrame(ws.OpText, true, "ok"), clientFrame(ws.OpText, true, "too big")...), uint16(4))
	f.Add([]byte("\x81\x05hello"), uint16(0)) // not masked
	f.Add([]byte{0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2, 3, 4, 5}, uint16(0))
	f.Fuzz(func(t *testing.T, in []byte, maxFrame uint16) {
		r, client, backend := pipeRelay(t, WebSocketProxyOptions{MaxFrameSize: int(maxFrame)})
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
		if !h.Masked || h.Rsv != 0 || h.OpCode.IsReserved() || h.OpCode.IsControl() && (!h.Fin || h.Length > ws.MaxControlFramePayloadSize) ||
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
