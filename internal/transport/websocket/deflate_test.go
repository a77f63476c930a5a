package websocket

import (
	"bufio"
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/gobwas/httphead"
	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsflate"

	"github.com/junction-wamp/junction/wamp"
)

func TestDeflateNegotiate(t *testing.T) {
	// off is the answer to every accepted offer: no context takeover
	// either way; tests add window bits.
	off := func(server, client wsflate.WindowBits) *wsflate.Parameters {
		return &wsflate.Parameters{ServerNoContextTakeover: true, ClientNoContextTakeover: true,
			ServerMaxWindowBits: server, ClientMaxWindowBits: client}
	}
	tests := []struct {
		name  string
		d     Deflate
		offer string
		want  *wsflate.Parameters // nil declines
		bits  int
	}{
		{"plain offer", Deflate{}, "permessage-deflate", off(0, 0), 15},
		{"server window asked", Deflate{}, "permessage-deflate; server_max_window_bits=10", off(10, 0), 10},
		{"server window configured", Deflate{MaxWindowBits: 9}, "permessage-deflate; server_max_window_bits=12", off(9, 0), 9},
		{"configured window kept to ourselves", Deflate{MaxWindowBits: 9}, "permessage-deflate", off(0, 0), 9},
		{"client window answered", Deflate{ClientMaxWindowBits: 12}, "permessage-deflate; client_max_window_bits", off(0, 12), 15},
		{"client window within the offer", Deflate{ClientMaxWindowBits: 12}, "permessage-deflate; client_max_window_bits=10", off(0, 10), 15},
		{"client window not offered", Deflate{ClientMaxWindowBits: 12}, "permessage-deflate", off(0, 0), 15},
		{"client window 8 asked as 9", Deflate{ClientMaxWindowBits: 8}, "permessage-deflate; client_max_window_bits", off(0, 9), 15},
		{"context takeover offered off", Deflate{}, "permessage-deflate; server_no_context_takeover; client_no_context_takeover", off(0, 0), 15},
		{"unknown parameter", Deflate{}, "permessage-deflate; foo=1", nil, 0},
		{"bad window", Deflate{}, "permessage-deflate; server_max_window_bits=20", nil, 0},
		{"other extension", Deflate{}, "x-webkit-deflate-frame", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, ok := httphead.ParseOptions([]byte(tt.offer), nil)
			if !ok || len(opts) != 1 {
				t.Fatalf("test offer %q does not parse", tt.offer)
			}
			resp, bits, ok := tt.d.negotiate(opts[0])
			if !ok {
				if tt.want != nil {
					t.Fatalf("negotiate(%q) declined, want %+v", tt.offer, *tt.want)
				}
				return
			}
			var got wsflate.Parameters
			if err := got.Parse(resp); err != nil {
				t.Fatalf("response %v: %v", resp, err)
			}
			if tt.want == nil || got != *tt.want || bits != tt.bits {
				t.Fatalf("negotiate(%q) = %+v, %d bits; want %+v, %d", tt.offer, got, bits, tt.want, tt.bits)
			}
		})
	}
}

// deflateClient dials url offering permessage-deflate and returns the raw
// client and the extensions the server accepted.
func deflateClient(t *testing.T, url string) (*rawClient, []httphead.Option) {
	t.Helper()
	d := ws.Dialer{Protocols: []string{"wamp.2.json"}, Extensions: []httphead.Option{wsflate.DefaultParameters.Option()}}
	conn, br, hs, err := d.Dial(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if br == nil {
		br = bufio.NewReader(conn)
	}
	return &rawClient{t: t, conn: conn, br: br}, hs.Extensions
}

// compress is a client's compressed message: deflate without the tail.
func compress(t *testing.T, msg string) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	io.WriteString(w, msg)
	w.Flush()
	return bytes.TrimSuffix(b.Bytes(), deflateTail)
}

// writeFrames sends payload as a message of len(sizes)+1 frames, the first
// with rsv.
func (c *rawClient) writeFrames(op ws.OpCode, rsv byte, payload []byte, sizes ...int) {
	c.t.Helper()
	for i := 0; ; i++ {
		n := len(payload)
		if i < len(sizes) {
			n = sizes[i]
		}
		f := ws.NewFrame(op, i == len(sizes), payload[:n])
		f.Header.Rsv = rsv
		if err := ws.WriteFrame(c.conn, ws.MaskFrame(f)); err != nil {
			c.t.Fatal(err)
		}
		if i == len(sizes) {
			return
		}
		op, rsv, payload = ws.OpContinuation, 0, payload[n:]
	}
}

func inflateAll(t *testing.T, z []byte) string {
	t.Helper()
	out, err := io.ReadAll(flate.NewReader(io.MultiReader(bytes.NewReader(z), bytes.NewReader(deflateTail))))
	if err != nil && err != io.ErrUnexpectedEOF {
		t.Fatalf("inflate: %v", err)
	}
	return string(out)
}

func TestDeflateMessages(t *testing.T) {
	a := newAttacher()
	c, exts := deflateClient(t, serve(t, Options{Attacher: a, Deflate: &Deflate{}}))
	if len(exts) != 1 || string(exts[0].Name) != "permessage-deflate" {
		t.Fatalf("accepted extensions %v, want permessage-deflate", exts)
	}
	s := <-a.Sessions
	defer close(s.Release)

	reason := "com.example." + strings.Repeat("long.", 40) + "reason"
	z := compress(t, `[6,{},"`+reason+`"]`)
	c.writeFrames(ws.OpText, rsv1, z, len(z)/2) // compressed, in two frames
	if m, err := s.Peer.Recv(); err != nil || m.(*wamp.Goodbye).Reason != wamp.URI(reason) {
		t.Fatalf("Recv = %v, %v", m, err)
	}
	c.writeFrames(ws.OpText, 0, []byte(`[6,{},"plain"]`)) // a client may send uncompressed
	if m, err := s.Peer.Recv(); err != nil || m.(*wamp.Goodbye).Reason != "plain" {
		t.Fatalf("Recv = %v, %v", m, err)
	}

	s.Peer.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.URI(reason)})
	h, b := c.read()
	if !h.Rsv1() || inflateAll(t, b) != `[6,{},"`+reason+`"]` {
		t.Fatalf("long message: rsv1 %v, %q", h.Rsv1(), b)
	}
	s.Peer.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: "short"})
	if h, b := c.read(); h.Rsv1() || string(b) != `[6,{},"short"]` {
		t.Fatalf("short message: rsv1 %v, %q; want it uncompressed", h.Rsv1(), b)
	}
}

// TestDeflateLarge: at the default 15 bits, a message over 32 KiB is
// compressed too (compress/flate never refers further back).
func TestDeflateLarge(t *testing.T) {
	a := newAttacher()
	c, _ := deflateClient(t, serve(t, Options{Attacher: a, Deflate: &Deflate{}}))
	s := <-a.Sessions
	defer close(s.Release)
	reason := "com." + strings.Repeat("abcdefgh.", 5000) + "end" // about 45 KB
	s.Peer.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.URI(reason)})
	h, b := c.read()
	if !h.Rsv1() || inflateAll(t, b) != `[6,{},"`+reason+`"]` {
		t.Fatalf("large message: rsv1 %v, %d bytes", h.Rsv1(), len(b))
	}
}

// TestDeflateWindow: with a window under 15 bits, a message longer than
// the window goes uncompressed.
func TestDeflateWindow(t *testing.T) {
	a := newAttacher()
	c, _ := deflateClient(t, serve(t, Options{Attacher: a, Deflate: &Deflate{MaxWindowBits: 8}}))
	s := <-a.Sessions
	defer close(s.Release)
	for _, n := range []int{100, 300} { // a message of n+7 bytes, window 256
		s.Peer.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.URI(strings.Repeat("a", n))})
		if h, _ := c.read(); h.Rsv1() != (n < 256) {
			t.Errorf("%d bytes: compressed %v", n+7, h.Rsv1())
		}
	}
}

func TestDeflateErrors(t *testing.T) {
	dial := func(t *testing.T, url string) *rawClient {
		c, _ := deflateClient(t, url)
		return c
	}
	checkFailures(t, Options{MaxMessageSize: 256, Deflate: &Deflate{}}, dial, []failCase{
		{"decompresses past max size", func(c *rawClient) {
			c.writeFrames(ws.OpText, rsv1, compress(c.t, strings.Repeat(" ", 300)))
		}, ErrMessageTooBig, ws.StatusMessageTooBig},
		{"not deflate", func(c *rawClient) { c.writeFrames(ws.OpText, rsv1, []byte{0xff, 0xff, 0xff}) },
			wamp.ErrProtocol, ws.StatusInvalidFramePayloadData},
		{"truncated", func(c *rawClient) {
			z := compress(c.t, `[6,{},"`+strings.Repeat("abc", 20)+`"]`)
			c.writeFrames(ws.OpText, rsv1, z[:len(z)/2])
		}, wamp.ErrProtocol, ws.StatusInvalidFramePayloadData},
		{"compressed bit on a continuation", func(c *rawClient) {
			c.write(ws.OpText, false, `[6,{},`)
			f := ws.MaskFrame(ws.NewFrame(ws.OpContinuation, true, []byte(`"x"]`)))
			f.Header.Rsv = rsv1
			ws.WriteFrame(c.conn, f)
		}, wamp.ErrProtocol, ws.StatusProtocolError},
		{"compressed bit on a control frame", func(c *rawClient) {
			f := ws.MaskFrame(ws.NewFrame(ws.OpPing, true, nil))
			f.Header.Rsv = rsv1
			ws.WriteFrame(c.conn, f)
		}, wamp.ErrProtocol, ws.StatusProtocolError},
	})
}

// TestDeflateNotOffered: without Deflate the offer is declined and the
// compressed bit is a protocol error.
func TestDeflateNotOffered(t *testing.T) {
	a := newAttacher()
	c, exts := deflateClient(t, serve(t, Options{Attacher: a}))
	if len(exts) != 0 {
		t.Fatalf("accepted %v without Deflate", exts)
	}
	s := <-a.Sessions
	defer close(s.Release)
	c.writeFrames(ws.OpText, rsv1, compress(t, `[6,{},"x"]`))
	if _, err := s.Peer.Recv(); !errors.Is(err, wamp.ErrProtocol) {
		t.Fatalf("Recv = %v, want ErrProtocol", err)
	}
}
