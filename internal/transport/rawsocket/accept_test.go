package rawsocket

import (
	"bytes"
	"errors"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/wamp/codec"
)

// flakyListener fails its first fails Accepts with EMFILE, as the
// listener of a process out of descriptors does, then hands out the
// connections sent on conns. It notes when each Accept was called.
type flakyListener struct {
	fails  int
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once

	mu    sync.Mutex // guards calls
	calls []time.Time
}

func newFlakyListener(fails int) *flakyListener {
	return &flakyListener{fails: fails, conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	l.calls = append(l.calls, time.Now())
	n := len(l.calls)
	l.mu.Unlock()
	if n <= l.fails {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: net.ErrClosed}
	}
}

func (l *flakyListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *flakyListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// pauses returns the time between successive Accept calls.
func (l *flakyListener) pauses() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var d []time.Duration
	for i := 1; i < len(l.calls); i++ {
		d = append(d, l.calls[i].Sub(l.calls[i-1]))
	}
	return d
}

// logBuffer is a log for concurrent use, in text format.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), "msg=\""+msg+"\"")
}

// TestAcceptRetriesAfterEMFILE is F1 (docs/SECURITY.md) scaled down: accepts
// failing with EMFILE (a connection burst past the descriptor limit) must
// not end Serve. It pauses 5 ms, doubling up to 1 s, logs once per
// interval, and serves the next connection once Accept works again.
func TestAcceptRetriesAfterEMFILE(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newFlakyListener(10)
		var log logBuffer
		s, err := NewServer(Options{Attacher: newEcho(), Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		served := make(chan error, 1)
		go func() { served <- s.Serve(l) }()

		client, server := net.Pipe()
		defer client.Close()
		select {
		case l.conns <- server:
		case err := <-served:
			t.Fatalf("Serve returned %v after EMFILE; want it to retry", err)
		}
		if _, err := exchangeHello(client, codec.JSON, 1<<16); err != nil {
			t.Fatalf("handshake after the accept errors: %v", err)
		}

		ms := time.Millisecond
		want := []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms, time.Second, time.Second}
		got := l.pauses() // then the next Accept, at once
		if got = got[:min(len(got), len(want))]; !slices.Equal(got, want) {
			t.Errorf("pauses between accepts %v, want %v", got, want)
		}
		// 10 failures within 3.3 s: one warning (the next would be due
		// 5 s after it), then one line when accepting works again.
		if n := log.count("rawsocket: accept failed, retrying"); n != 1 {
			t.Errorf("%d accept warnings, want 1 (rate-limited):\n%s", n, &log.b)
		}
		if n := log.count("rawsocket: accepting again"); n != 1 {
			t.Errorf("%d 'accepting again' lines, want 1:\n%s", n, &log.b)
		}
		client.Close()
		s.Close()
		if err := <-served; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve = %v, want ErrServerClosed", err)
		}
	})
}

// TestCloseDuringAcceptPause: Close ends Serve at once, not after the
// pause that follows a failed Accept.
func TestCloseDuringAcceptPause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newFlakyListener(1 << 30)
		s, err := NewServer(Options{Attacher: newEcho()})
		if err != nil {
			t.Fatal(err)
		}
		served := make(chan error, 1)
		go func() { served <- s.Serve(l) }()
		synctest.Wait() // Serve is in its pause after the first failure
		start := time.Now()
		s.Close()
		if err := <-served; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve = %v, want ErrServerClosed", err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("Serve returned %v after Close, want at once", d)
		}
	})
}

// TestServeEndsWhenListenerClosed: a listener closed by its owner (not by
// Close) ends Serve with an error wrapping net.ErrClosed, not a retry.
func TestServeEndsWhenListenerClosed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(Options{Attacher: newEcho()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	l.Close()
	if err := <-served; !errors.Is(err, net.ErrClosed) {
		t.Errorf("Serve = %v, want net.ErrClosed", err)
	}
}
