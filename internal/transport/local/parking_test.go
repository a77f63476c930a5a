package local

import (
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// server reads a ParkingPeer as the router does (session.serve): it
// records what it takes and on which goroutine role, parks on ErrIdle and
// stops at the pair's end.
type server struct {
	p      *ParkingPeer
	mu     sync.Mutex
	got    []wamp.ID
	parked int
	ended  chan error
	// onTake, when set, runs with each message taken, on the goroutine
	// serving.
	onTake func(id wamp.ID)
}

func newServer(p wamp.Peer) *server {
	return &server{p: p.(*ParkingPeer), ended: make(chan error, 1)}
}

// serve reads until the peer is idle and parks, or the pair ends.
func (s *server) serve() {
	for {
		m, err := s.p.RecvOrIdle()
		if err == wamp.ErrIdle {
			if s.p.Park(s.serve) {
				s.mu.Lock()
				s.parked++
				s.mu.Unlock()
				return
			}
			continue
		}
		if err != nil {
			s.ended <- err
			return
		}
		id := m.(*wamp.Published).Request
		if s.onTake != nil {
			s.onTake(id)
		}
		s.mu.Lock()
		s.got = append(s.got, id)
		s.mu.Unlock()
	}
}

// inlineCount is c.inline of the router's side: -1 while a goroutine of
// its own serves it.
func (c *conn) inlineCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inline[1]
}

func (s *server) taken() []wamp.ID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]wamp.ID(nil), s.got...)
}

func TestParkingPeerServesOnTheSendersGoroutine(t *testing.T) {
	a, b := Pair(Options{Parks: true})
	if _, ok := a.(wamp.Parker); ok {
		t.Fatal("the first end parks; only the second (the router's) should")
	}
	s := newServer(b)
	s.serve() // nothing queued: parks at once
	if s.parked != 1 {
		t.Fatalf("parked %d times, want 1", s.parked)
	}
	for i := 1; i <= 3; i++ {
		if err := a.Send(pub(i)); err != nil {
			t.Fatal(err)
		}
		// Served before Send returned, on this goroutine.
		if got := s.taken(); len(got) != i || got[i-1] != wamp.ID(i) {
			t.Fatalf("after Send #%d: taken %v", i, got)
		}
	}
	a.Close()
	if err := <-s.ended; err != io.EOF {
		t.Fatalf("end = %v, want EOF", err)
	}
}

func TestParkingPeerReadsOnWhileQueued(t *testing.T) {
	a, b := Pair(Options{Parks: true})
	defer a.Close()
	a.Send(pub(1))
	a.Send(pub(2))
	p := b.(*ParkingPeer)
	if p.Park(func() { t.Error("resumed although messages were queued") }) {
		t.Fatal("Park = true with messages queued for a reader on its own goroutine")
	}
	for i := 1; i <= 2; i++ {
		m, err := p.RecvOrIdle()
		if err != nil || m.(*wamp.Published).Request != wamp.ID(i) {
			t.Fatalf("RecvOrIdle = %v, %v; want request %d", m, err, i)
		}
		if want := i == 1; p.Buffered() != want {
			t.Fatalf("Buffered after #%d = %v, want %v", i, p.Buffered(), want)
		}
	}
	if _, err := p.RecvOrIdle(); err != wamp.ErrIdle {
		t.Fatalf("RecvOrIdle with nothing queued = %v, want ErrIdle", err)
	}
}

// A sender's goroutine serves at most maxInline messages; what comes
// after goes to a goroutine of its own, in order.
func TestParkingPeerHandsOverAfterMaxInline(t *testing.T) {
	const n, m = maxInline, maxInline + 5
	a, b := Pair(Options{Parks: true, MaxMessages: 2 * m})
	s := newServer(b)
	queued := map[wamp.ID]chan struct{}{1: make(chan struct{}), n: make(chan struct{})}
	inline := map[wamp.ID]bool{}
	serving := map[wamp.ID]chan struct{}{1: make(chan struct{}), n: make(chan struct{})}
	s.onTake = func(id wamp.ID) {
		inline[id] = s.p.c.inlineCount() >= 0
		if c := serving[id]; c != nil {
			close(c)
		}
		if c := queued[id]; c != nil {
			<-c
		}
	}
	s.serve()
	sent := make(chan error)
	go func() { sent <- a.Send(pub(1)) }() // resumes the reader, which waits in onTake
	<-serving[1]
	sendAll := func(from, to int) {
		for i := from; i <= to; i++ {
			if err := a.Send(pub(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	sendAll(2, n) // queued while the first sender serves request 1
	close(queued[1])
	<-serving[n]
	sendAll(n+1, m) // queued while it serves request n, the maxInline-th
	close(queued[n])
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	a.Close()
	if err := <-s.ended; err != io.EOF {
		t.Fatalf("end = %v, want EOF", err)
	}
	got := s.taken()
	if len(got) != m {
		t.Fatalf("taken %d messages, want %d", len(got), m)
	}
	for i, id := range got {
		if id != wamp.ID(i+1) {
			t.Fatalf("message %d is request %d: out of order", i+1, id)
		}
		if want := i < n; inline[id] != want {
			t.Fatalf("request %d served by the sender's goroutine: %v, want %v", id, inline[id], want)
		}
	}
}

func TestParkingPeerCloseResumesParked(t *testing.T) {
	for _, closer := range []string{"client", "router"} {
		t.Run(closer, func(t *testing.T) {
			a, b := Pair(Options{Parks: true})
			s := newServer(b)
			s.serve()
			if closer == "client" {
				a.Close()
			} else {
				b.Close()
			}
			if err := <-s.ended; err != io.EOF {
				t.Fatalf("end = %v, want EOF", err)
			}
			if b.(*ParkingPeer).Park(func() {}) {
				t.Fatal("Park = true after Close")
			}
		})
	}
}

// A reader busy serving on a sender's goroutine is a slow consumer like
// any other once its queue is full: what was queued is served, then the
// end.
func TestParkingPeerSlowConsumer(t *testing.T) {
	a, b := Pair(Options{Parks: true, MaxMessages: 2})
	s := newServer(b)
	serving, release := make(chan struct{}), make(chan struct{})
	s.onTake = func(id wamp.ID) {
		if id == 1 {
			close(serving)
			<-release
		}
	}
	s.serve()
	go a.Send(pub(1))
	<-serving
	a.Send(pub(2))
	a.Send(pub(3))
	if err := a.Send(pub(4)); !errors.Is(err, wamp.ErrSlowConsumer) {
		t.Fatalf("Send past the bound = %v, want ErrSlowConsumer", err)
	}
	close(release)
	if err := <-s.ended; !errors.Is(err, wamp.ErrSlowConsumer) {
		t.Fatalf("end = %v, want ErrSlowConsumer", err)
	}
	if got := s.taken(); len(got) != 3 {
		t.Fatalf("taken %v, want requests 1-3", got)
	}
}

// BenchmarkParkedSend sends to a parked reader, which the Send serves on
// its own goroutine (BenchmarkSendRecv: to a reader that reads on).
func BenchmarkParkedSend(b *testing.B) {
	x, y := Pair(Options{Parks: true})
	p := y.(*ParkingPeer)
	var serve func()
	serve = func() {
		for {
			_, err := p.RecvOrIdle()
			if err == wamp.ErrIdle {
				if p.Park(serve) {
					return
				}
				continue
			}
			if err != nil {
				return
			}
		}
	}
	serve()
	m := pub(1)
	b.ReportAllocs()
	for b.Loop() {
		x.Send(m)
	}
	x.Close()
}
