package epoll

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pair returns the two ends of a loopback TCP connection.
func pair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err = net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if server, err = l.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// TestTakeAndBack: a socket taken out of Go's netpoller is read and
// written nonblocking through the Poller's events, with its tag, then
// made a net.Conn again.
func TestTakeAndBack(t *testing.T) {
	client, server := pair(t)
	fd, err := Take(server)
	if err != nil {
		t.Fatal(err)
	}
	_ = server.Close() // the duplicate stays open
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Add(fd, In|RDHup, 7); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if _, err := Read(fd, buf); !errors.Is(err, syscall.EAGAIN) {
		t.Fatalf("read with nothing sent: %v, want EAGAIN", err)
	}
	if _, err := io.WriteString(client, "ping"); err != nil {
		t.Fatal(err)
	}
	events := make([]Event, 4)
	n, woken, err := p.Wait(events, 5000)
	if err != nil || n != 1 || woken || FD(&events[0]) != fd || Tag(&events[0]) != 7 || events[0].Events&In == 0 {
		t.Fatalf("Wait: %d events %+v, woken %v, %v; want fd %d readable, tag 7", n, events[:n], woken, err, fd)
	}
	if k, err := Read(fd, buf); err != nil || string(buf[:k]) != "ping" {
		t.Fatalf("read %q, %v", buf[:k], err)
	}
	if k, err := Write(fd, []byte("pong")); err != nil || k != 4 {
		t.Fatalf("write: %d, %v", k, err)
	}
	if _, err := io.ReadFull(client, buf[:4]); err != nil || string(buf[:4]) != "pong" {
		t.Fatalf("client read %q, %v", buf[:4], err)
	}
	if err := p.Del(fd); err != nil {
		t.Fatal(err)
	}
	c, err := Conn(fd)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "back"); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(client, buf[:4]); err != nil || string(buf[:4]) != "back" {
		t.Fatalf("client read %q, %v", buf[:4], err)
	}
}

// TestWake: Wake from another goroutine ends a Wait with no event but
// woken.
func TestWake(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Wake()
		p.Wake()
	}()
	<-done
	n, woken, err := p.Wait(make([]Event, 4), 5000)
	if err != nil || n != 0 || !woken {
		t.Fatalf("Wait: %d events, woken %v, %v; want 0, woken", n, woken, err)
	}
	if n, woken, err := p.Wait(make([]Event, 4), 0); err != nil || n != 0 || woken {
		t.Fatalf("second Wait: %d events, woken %v, %v; want none (the wake-ups were drained)", n, woken, err)
	}
}

// TestTakeUnsupported: a connection without a descriptor is refused.
func TestTakeUnsupported(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if _, err := Take(a); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("Take(net.Pipe): %v, want ErrUnsupported", err)
	}
}
