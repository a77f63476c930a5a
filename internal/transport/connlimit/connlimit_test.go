package connlimit

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeListener hands out, on each Accept, the next connection sent on
// conns, or the next error sent on errs.
type fakeListener struct {
	conns  chan net.Conn
	errs   chan error
	closed chan struct{}
	once   sync.Once
}

func newFakeListener() *fakeListener {
	return &fakeListener{conns: make(chan net.Conn), errs: make(chan error), closed: make(chan struct{})}
}

func (l *fakeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case err := <-l.errs:
		return nil, err
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *fakeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *fakeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }

// fakeConn is a connection from remote that notes its Close calls.
type fakeConn struct {
	net.Conn // nil: only the methods below are used
	remote   net.Addr

	mu     sync.Mutex
	closes int
}

func (c *fakeConn) RemoteAddr() net.Addr { return c.remote }

func (c *fakeConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closes++
	return nil
}

func (c *fakeConn) closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closes > 0
}

func tcpFrom(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000} }

// harness runs Accept in a loop on a capped fake listener, in a synctest
// bubble: arrive makes a connection arrive and tells what Accept did.
type harness struct {
	t        *testing.T
	fake     *fakeListener
	l        *Listener
	accepted chan net.Conn
	errs     chan error
}

func newHarness(t *testing.T, opts Options) *harness {
	h := &harness{t: t, fake: newFakeListener(), accepted: make(chan net.Conn), errs: make(chan error)}
	h.l = New(h.fake, opts)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := h.l.Accept()
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil {
				h.errs <- err
				continue
			}
			h.accepted <- c
		}
	}()
	t.Cleanup(func() {
		h.l.Close()
		<-done
	})
	return h
}

// arrive offers a connection from remote; it returns it with what Accept
// returned for it, nil when Accept closed it and went on waiting.
func (h *harness) arrive(remote net.Addr) (*fakeConn, net.Conn) {
	h.t.Helper()
	c := &fakeConn{remote: remote}
	h.fake.conns <- c
	synctest.Wait()
	select {
	case got := <-h.accepted:
		return c, got
	default:
	}
	if !c.closed() {
		h.t.Fatalf("connection from %v neither accepted nor closed", remote)
	}
	return c, nil
}

// TestMaxConnections: past Max open connections, a new one is closed at
// once and counted; once one closes (once, whatever its Close calls), the
// next is accepted again.
func TestMaxConnections(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		h := newHarness(t, Options{Max: 2, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		_, a := h.arrive(tcpFrom("192.0.2.1"))
		_, b := h.arrive(tcpFrom("192.0.2.2"))
		if a == nil || b == nil {
			t.Fatal("connections under the cap refused")
		}
		if _, got := h.arrive(tcpFrom("192.0.2.3")); got != nil {
			t.Fatal("third connection over a cap of 2 accepted")
		}
		a.Close()
		a.Close() // a second Close frees no second slot
		if _, got := h.arrive(tcpFrom("192.0.2.3")); got == nil {
			t.Fatal("connection refused after one of two closed")
		}
		if _, got := h.arrive(tcpFrom("192.0.2.4")); got != nil {
			t.Fatal("connection accepted over the cap after a double Close")
		}
		if s := h.l.Stats(); s != (Stats{Open: 2, Refused: 2}) {
			t.Errorf("Stats = %+v, want 2 open, 2 refused", s)
		}
		// Two refusals within the log interval: one line.
		if n := strings.Count(log.String(), "the listener is at its connection cap"); n != 1 {
			t.Errorf("%d refusal lines, want 1:\n%s", n, &log)
		}
		want := "level=WARN msg=\"connection refused: the listener is at its connection cap\" max_connections=2 remote=192.0.2.3:40000 refused_since_last_log=0"
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, &log)
		}
	})
}

// TestMaxPerIP: a client IP at MaxPerIP gets its next connection closed at
// once while other IPs are served; IPv4-mapped IPv6 is its IPv4 address;
// a Unix socket's clients have no IP and are not capped per IP.
func TestMaxPerIP(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{MaxPerIP: 2})
		tests := []struct {
			remote net.Addr
			want   bool // accepted
		}{
			{tcpFrom("192.0.2.1"), true},
			{tcpFrom("192.0.2.1"), true},
			{tcpFrom("192.0.2.1"), false},
			{tcpFrom("::ffff:192.0.2.1"), false}, // the same client
			{tcpFrom("192.0.2.2"), true},
			{tcpFrom("2001:db8::1"), true},
			{tcpFrom("2001:db8::1"), true},
			{tcpFrom("2001:db8::1"), false},
			{tcpFrom("2001:db8::2"), true},
			{&net.UnixAddr{Name: "@", Net: "unix"}, true},
			{&net.UnixAddr{Name: "@", Net: "unix"}, true},
			{&net.UnixAddr{Name: "@", Net: "unix"}, true},
		}
		var first net.Conn
		for i, tt := range tests {
			_, got := h.arrive(tt.remote)
			if (got != nil) != tt.want {
				t.Fatalf("connection %d from %v: accepted %v, want %v", i, tt.remote, got != nil, tt.want)
			}
			if i == 0 {
				first = got
			}
		}
		first.Close()
		if _, got := h.arrive(tcpFrom("192.0.2.1")); got == nil {
			t.Fatal("refused after one of its IP's connections closed")
		}
		if s := h.l.Stats(); s != (Stats{Open: 9, RefusedPerIP: 3}) {
			t.Errorf("Stats = %+v, want 9 open, 3 refused per IP", s)
		}
	})
}

// TestAcceptErrorUnchanged: Accept returns the wrapped listener's error
// as it is, so that net/http's Server still sees a temporary net.Error
// (EMFILE) and retries instead of stopping.
func TestAcceptErrorUnchanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Max: 1})
		emfile := &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
		h.fake.errs <- emfile
		if err := <-h.errs; err != error(emfile) {
			t.Errorf("Accept error %v (%T), want the listener's own", err, err)
		}
	})
}

func TestDefaultMax(t *testing.T) {
	tests := []struct {
		nofile     uint64
		n, perConn int
		want       int
	}{
		{1024, 1, 1, 896},
		{1024, 2, 1, 448},
		{1024, 1, 2, 448}, // a proxy listener: two descriptors a connection
		{1024, 2, 2, 224},
		{256, 1, 1, 192},
		{256, 2, 1, 96},
		{20000, 1, 1, 17500},
		{20000, 1, 2, 8750},
		{524288, 1, 1, DefaultCeiling}, // systemd's hard limit: 458,752 without the ceiling
		{524288, 2, 1, DefaultCeiling / 2},
		{524288, 1, 2, DefaultCeiling / 2},
		{1 << 20, 1, 1, DefaultCeiling},
		{1 << 63, 1, 1, DefaultCeiling}, // unlimited
		{74897, 1, 1, 65535},            // just below the ceiling
		{64, 1, 1, 1},                   // all reserve: still one
		{100, 3, 1, 12},
		{100, 3, 2, 6},
		{100, 40, 2, 1},
		{1024, 0, 1, 1},
		{1024, 1, 0, 896}, // perConn below 1 counts as 1
	}
	for _, tt := range tests {
		if got := defaultMax(tt.nofile, tt.n, tt.perConn); got != tt.want {
			t.Errorf("defaultMax(%d, %d, %d) = %d, want %d", tt.nofile, tt.n, tt.perConn, got, tt.want)
		}
	}
	if n := DefaultMax(1, 1); n < 1 || n > DefaultCeiling {
		t.Errorf("DefaultMax(1, 1) = %d on this system", n)
	}
}

// TestHalfClose: an admitted TCP connection keeps CloseWrite, which
// net/http calls before it closes a connection it answered with
// "Connection: close" (through an interface check: a wrapper without the
// method silently sends no FIN): the client reads the end of the stream
// while the server still reads what the client sends. CloseRead is kept
// too.
func TestHalfClose(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(inner, Options{Max: 1})
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	hc, ok := server.(interface{ CloseWrite() error })
	if !ok {
		t.Fatal("admitted connection has no CloseWrite")
	}
	// Its raw socket too: the outbox writes into it without a goroutine.
	if _, err := server.(syscall.Conn).SyscallConn(); err != nil {
		t.Fatalf("SyscallConn: %v", err)
	}
	if _, err := server.Write([]byte("answer")); err != nil {
		t.Fatal(err)
	}
	if err := hc.CloseWrite(); err != nil {
		t.Fatalf("CloseWrite: %v", err)
	}
	got, err := io.ReadAll(client) // ends only at the server's FIN
	if err != nil || string(got) != "answer" {
		t.Fatalf("client read %q, %v", got, err)
	}
	if _, err := client.Write([]byte("late")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(server, buf); err != nil || string(buf) != "late" {
		t.Fatalf("server read %q, %v after its CloseWrite", buf, err)
	}
	if err := server.(interface{ CloseRead() error }).CloseRead(); err != nil {
		t.Errorf("CloseRead: %v", err)
	}
}

// copierConn records ReadFrom and WriteTo calls.
type copierConn struct {
	fakeConn
	read, wrote bool
}

func (c *copierConn) ReadFrom(r io.Reader) (int64, error) {
	c.read = true
	return io.Copy(io.Discard, r)
}

func (c *copierConn) WriteTo(w io.Writer) (int64, error) {
	c.wrote = true
	return 0, nil
}

// TestOptionalMethodsKept: an admitted connection keeps its ReadFrom
// (sendfile for net/http's static files) and its WriteTo (splice when a
// hijacked connection is copied to an upstream); one whose connection
// cannot half-close says so with errors.ErrUnsupported.
func TestOptionalMethodsKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Max: 2})
		inner := &copierConn{fakeConn: fakeConn{remote: tcpFrom("192.0.2.1")}}
		h.fake.conns <- inner
		c := <-h.accepted
		if _, err := c.(io.ReaderFrom).ReadFrom(strings.NewReader("x")); err != nil || !inner.read {
			t.Errorf("ReadFrom: %v, inner called %v", err, inner.read)
		}
		if _, err := c.(io.WriterTo).WriteTo(io.Discard); err != nil || !inner.wrote {
			t.Errorf("WriteTo: %v, inner called %v", err, inner.wrote)
		}
		if err := c.(interface{ CloseWrite() error }).CloseWrite(); !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("CloseWrite without one below: %v", err)
		}
		if err := c.(interface{ CloseRead() error }).CloseRead(); !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("CloseRead without one below: %v", err)
		}
		if _, err := c.(syscall.Conn).SyscallConn(); !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("SyscallConn without one below: %v", err)
		}
		c.Close()
	})
}

// TestDetach: a detached connection stays counted in after the connection
// Detach returned is closed, and counts out once its release runs, once
// however often it runs and whether or not the accepted connection's own
// Close runs too; a connection another listener accepted is refused.
func TestDetach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Max: 1})
		raw, c := h.arrive(tcpFrom("192.0.2.1"))
		if c == nil {
			t.Fatal("first connection refused")
		}
		inner, release, err := h.l.Detach(c)
		if err != nil {
			t.Fatal(err)
		}
		if inner != net.Conn(raw) {
			t.Fatalf("Detach returned %v, want the wrapped connection", inner)
		}
		_ = inner.Close()
		if open := h.l.Stats().Open; open != 1 {
			t.Fatalf("open after closing the detached connection = %d, want 1", open)
		}
		if _, admitted := h.arrive(tcpFrom("192.0.2.2")); admitted != nil {
			t.Fatal("a second connection was admitted while the detached one counts")
		}
		release()
		release()
		_ = c.Close()
		if open := h.l.Stats().Open; open != 0 {
			t.Fatalf("open after release = %d, want 0", open)
		}
		if _, again := h.arrive(tcpFrom("192.0.2.3")); again == nil {
			t.Fatal("no slot after release")
		}
		if open := h.l.Stats().Open; open != 1 {
			t.Fatalf("open = %d, want 1 (released once)", open)
		}
		other := New(newFakeListener(), Options{})
		if _, _, err := other.Detach(c); !errors.Is(err, ErrNotDetachable) {
			t.Fatalf("Detach on another listener: %v, want ErrNotDetachable", err)
		}
		if _, _, err := h.l.Detach(&fakeConn{}); !errors.Is(err, ErrNotDetachable) {
			t.Fatalf("Detach of a foreign connection: %v, want ErrNotDetachable", err)
		}
	})
}
