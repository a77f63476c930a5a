package unisocket

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
)

// serve starts a Mux with opts on a loopback listener, set up by routes
// first, and returns its address; the Mux is closed when the test ends.
func serve(t *testing.T, opts Options, routes func(m *Mux)) (*Mux, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, l, opts, routes)
}

// serveOn is serve on l.
func serveOn(t *testing.T, l net.Listener, opts Options, routes func(m *Mux)) (*Mux, string) {
	t.Helper()
	m := New(opts)
	routes(m)
	done := make(chan error, 1)
	go func() { done <- m.Serve(l) }()
	t.Cleanup(func() {
		m.Close()
		if err := <-done; !errors.Is(err, net.ErrClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return m, l.Addr().String()
}

// acceptOne accepts one connection on l and returns all it reads.
func acceptOne(l net.Listener) <-chan string {
	out := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			out <- "accept: " + err.Error()
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		out <- string(b)
	}()
	return out
}

// send dials addr, writes msg and closes its side.
func send(t *testing.T, addr, msg string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).CloseWrite()
	return c
}

// TestRoutes: each connection reaches the route of its first byte, or the
// fallback, with every byte it sent.
func TestRoutes(t *testing.T) {
	var raw, other net.Listener
	_, addr := serve(t, Options{}, func(m *Mux) { raw, other = m.Route(0x7F), m.Fallback() })
	tests := []struct {
		msg string
		to  *net.Listener
	}{
		{"\x7Fraw socket bytes", &raw},
		{"GET / HTTP/1.1\r\n\r\n", &other},
		{"\x10mqtt", &other},
		{"\x7F", &raw},
	}
	for _, tt := range tests {
		got := acceptOne(*tt.to)
		send(t, addr, tt.msg)
		if s := <-got; s != tt.msg {
			t.Errorf("route got %q, want %q", s, tt.msg)
		}
	}
}

// TestNoRoute: a first byte without a route (and no fallback) closes the
// connection.
func TestNoRoute(t *testing.T) {
	_, addr := serve(t, Options{Names: map[byte]string{0x10: "MQTT"}}, func(m *Mux) { m.Route(0x7F) })
	c := send(t, addr, "\x10\x00")
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second)) // bounds the test only: the server closes first
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatalf("read %d bytes; want the connection closed", n)
	}
}

// TestRefuse: a refused first byte closes the connection, fallback or
// not.
func TestRefuse(t *testing.T) {
	_, addr := serve(t, Options{}, func(m *Mux) { m.Fallback(); m.Refuse(0x10) })
	c := send(t, addr, "\x10\x00")
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second)) // bounds the test only: the server closes first
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatalf("read %d bytes; want the connection closed", n)
	}
}

// TestPeekTimeout: a client that sends nothing is closed after the peek
// timeout, and never reaches a route.
func TestPeekTimeout(t *testing.T) {
	var other net.Listener
	_, addr := serve(t, Options{PeekTimeout: 50 * time.Millisecond}, func(m *Mux) { other = m.Fallback() })
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a bound on the test only
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("read: %v, want EOF (closed by the server)", err)
	}
	other.Close()
	if _, err := other.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("the route got a connection: %v", err)
	}
}

// TestClose: Close ends the routes' Accept and closes the connections
// still waiting for their first byte.
func TestClose(t *testing.T) {
	var other net.Listener
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: l, calls: make(chan struct{}, 4)}
	m, addr := serveOn(t, cl, Options{}, func(m *Mux) { other = m.Fallback() })
	<-cl.calls // the first Accept
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	accepted := make(chan error, 1)
	go func() {
		_, err := other.Accept()
		accepted <- err
	}()
	<-cl.calls // the second Accept: the connection is pending
	m.Close()
	if err := <-accepted; !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept: %v, want net.ErrClosed", err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("read: %v, want EOF", err)
	}
}

// countingListener signals each call of Accept.
type countingListener struct {
	net.Listener
	calls chan struct{}
}

func (l *countingListener) Accept() (net.Conn, error) {
	l.calls <- struct{}{}
	return l.Listener.Accept()
}

// TestRawConnForWrites: a dispatched plain TCP connection gives its raw
// socket (for the outbox's writes that never wait); over TLS it has none.
func TestRawConnForWrites(t *testing.T) {
	var raw net.Listener
	_, addr := serve(t, Options{}, func(m *Mux) { raw = m.Route(0x7F) })
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := raw.Accept()
		accepted <- c
	}()
	send(t, addr, "\x7F")
	c := <-accepted
	if c == nil {
		t.Fatal("accept failed")
	}
	defer c.Close()
	if _, err := c.(syscall.Conn).SyscallConn(); err != nil {
		t.Fatalf("SyscallConn: %v", err)
	}
	onTLS := &Conn{Conn: tls.Server(c, &tls.Config{})}
	if _, err := onTLS.SyscallConn(); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("SyscallConn over TLS: %v, want ErrUnsupported", err)
	}
}
