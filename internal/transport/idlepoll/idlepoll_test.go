package idlepoll

import (
	"errors"
	"io"
	"net"
	"runtime"
	"testing"

	"go.uber.org/goleak"
)

// The poller's goroutine ends once nothing is parked: none leaks.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pair returns a wrapped server end and the client end of a loopback TCP
// connection.
func pair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server := <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	if !Parkable(server) {
		t.Skipf("parking is not built for %s", runtime.GOOS)
	}
	c := Wrap(server)
	t.Cleanup(func() { c.Close(); client.Close() })
	return c, client
}

// park parks c and returns the channel its resume function signals.
func park(t *testing.T, c *Conn) <-chan struct{} {
	t.Helper()
	resumed := make(chan struct{}, 2)
	if err := c.Park(func() { resumed <- struct{}{} }); err != nil {
		t.Fatalf("Park: %v", err)
	}
	return resumed
}

func TestResumesOnData(t *testing.T) {
	c, client := pair(t)
	buf := make([]byte, 5)
	for _, msg := range []string{"hello", "again"} { // parks twice: re-armed
		resumed := park(t, c)
		client.Write([]byte(msg))
		<-resumed
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != msg {
			t.Fatalf("read %q, %v after resume; want %q", buf, err, msg)
		}
	}
}

// TestResumesOnDataAlreadyThere: data that arrived before Park resumes at
// once.
func TestResumesOnDataAlreadyThere(t *testing.T) {
	c, client := pair(t)
	client.Write([]byte("x"))
	buf := make([]byte, 1)
	if _, err := io.ReadFull(c, buf); err != nil { // the data has arrived
		t.Fatal(err)
	}
	client.Write([]byte("y"))
	resumed := park(t, c)
	client.Write([]byte("z"))
	<-resumed
}

func TestResumesOnHangup(t *testing.T) {
	c, client := pair(t)
	resumed := park(t, c)
	client.Close()
	<-resumed
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("read after hangup: %v, want EOF", err)
	}
}

// TestCloseResumes: closing a parked connection resumes it (its reader
// then finds it closed), and it cannot park again.
func TestCloseResumes(t *testing.T) {
	c, _ := pair(t)
	resumed := park(t, c)
	c.Close()
	<-resumed
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after Close: %v", err)
	}
	if err := c.Park(func() { t.Error("resumed after Close") }); err == nil {
		t.Fatal("Park after Close succeeded")
	}
}

// TestCloseWhileRunning: a connection closed while not parked cannot park
// afterwards (its descriptor is gone from epoll without an event).
func TestCloseWhileRunning(t *testing.T) {
	c, _ := pair(t)
	poll.unpark(&c.spot) // as Close does first
	if err := c.Park(func() { t.Error("resumed") }); !errors.Is(err, ErrClosed) {
		t.Fatalf("Park after unpark: %v, want ErrClosed", err)
	}
}

func TestNotParkable(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Parkable(a) {
		t.Fatal("a pipe is parkable")
	}
	if err := Wrap(a).Park(func() {}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Park on a pipe: %v, want ErrUnsupported", err)
	}
}
