package rawsocket

import (
	"bufio"
	"errors"
	"io"
	"net"
	"testing"

	"go.uber.org/goleak"

	"github.com/junction-wamp/junction/internal/transport/transporttest"
	"github.com/junction-wamp/junction/wamp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The shared doubles of package transporttest, under this package's names.
type (
	session      = transporttest.Session
	echoAttacher = transporttest.Echo
)

var (
	newAttacher    = transporttest.NewAttacher
	newEcho        = transporttest.NewEcho
	sampleMessages = transporttest.SampleMessages
)

// serveOn runs a server for opts on l until the test ends.
func serveOn(t testing.TB, l net.Listener, opts Options) {
	t.Helper()
	s, err := NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve = %v, want ErrServerClosed", err)
		}
	})
}

// serve runs a server on a loopback TCP port and returns its address.
func serve(t testing.TB, opts Options) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, l, opts)
	return l.Addr().String()
}

func dial(t testing.TB, addr string, opts DialOptions) wamp.Peer {
	t.Helper()
	p, err := Dial(t.Context(), "tcp", addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// rawConn is a client speaking bytes, for what Dial never sends.
type rawConn struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, c: c, br: bufio.NewReader(c)}
}

func (r *rawConn) write(b ...byte) {
	r.t.Helper()
	if _, err := r.c.Write(b); err != nil {
		r.t.Fatal(err)
	}
}

// read4 reads four octets, or returns the read error.
func (r *rawConn) read4() ([4]byte, error) {
	var b [4]byte
	_, err := io.ReadFull(r.br, b[:])
	return b, err
}

// open does a msgpack handshake offering 2^(9+15).
func (r *rawConn) open() {
	r.t.Helper()
	r.write(magic, 0xF2, 0, 0)
	if b, err := r.read4(); err != nil || b[0] != magic || b[1]&0x0F != 2 {
		r.t.Fatalf("handshake answer %x, %v", b, err)
	}
}

// frame writes a frame of type typ.
func (r *rawConn) frame(typ byte, payload []byte) {
	n := len(payload)
	r.write(append([]byte{typ, byte(n >> 16), byte(n >> 8), byte(n)}, payload...)...)
}

// readFrame reads one frame.
func (r *rawConn) readFrame() (byte, []byte, error) {
	var hdr [4]byte
	return readFrame(r.br, &hdr, maxFrameLen)
}
