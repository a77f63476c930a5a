package local

import (
	"errors"
	"io"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/junction-wamp/junction/wamp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func pub(i int) *wamp.Published { return &wamp.Published{Request: wamp.ID(i), Publication: 1} }

func TestRoundTripBothWays(t *testing.T) {
	a, b := Pair(Options{})
	for _, dir := range []struct{ from, to wamp.Peer }{{a, b}, {b, a}} {
		for i := 1; i <= 3; i++ {
			if err := dir.from.Send(pub(i)); err != nil {
				t.Fatal(err)
			}
		}
		for i := 1; i <= 3; i++ {
			m, err := dir.to.Recv()
			if err != nil || m.(*wamp.Published).Request != wamp.ID(i) {
				t.Fatalf("Recv = %v, %v; want request %d", m, err, i)
			}
		}
	}
	if a.Info().Transport != "local" {
		t.Fatalf("Info = %+v", a.Info())
	}
}

func TestSharedIsUnwrapped(t *testing.T) {
	a, b := Pair(Options{})
	want := pub(5)
	a.Send(wamp.NewShared(want))
	if m, _ := b.Recv(); m != want {
		t.Fatalf("Recv = %#v, want the unwrapped message", m)
	}
}

func TestCloseDrainsThenEOF(t *testing.T) {
	for _, closer := range []string{"sender", "receiver"} {
		t.Run(closer, func(t *testing.T) {
			a, b := Pair(Options{})
			a.Send(pub(1))
			a.Send(pub(2))
			if closer == "sender" {
				a.Close()
			} else {
				b.Close()
			}
			for i := 1; i <= 2; i++ {
				if m, err := b.Recv(); err != nil || m.(*wamp.Published).Request != wamp.ID(i) {
					t.Fatalf("Recv = %v, %v", m, err)
				}
			}
			if _, err := b.Recv(); err != io.EOF {
				t.Fatalf("Recv after drain = %v, want EOF", err)
			}
			if _, err := a.Recv(); err != io.EOF {
				t.Fatalf("other side Recv = %v, want EOF", err)
			}
			if err := a.Send(pub(3)); !errors.Is(err, wamp.ErrClosed) {
				t.Fatalf("Send after Close = %v", err)
			}
			a.Close()
			b.Close()
		})
	}
}

func TestCloseWakesBlockedRecv(t *testing.T) {
	a, b := Pair(Options{})
	done := make(chan error)
	go func() { _, err := b.Recv(); done <- err }()
	a.Close()
	if err := <-done; err != io.EOF {
		t.Fatalf("Recv = %v, want EOF", err)
	}
}

func TestSlowConsumer(t *testing.T) {
	a, b := Pair(Options{MaxMessages: 4})
	var err error
	n := 0
	for ; err == nil && n < 100; n++ {
		err = a.Send(pub(n + 1))
	}
	if !errors.Is(err, wamp.ErrSlowConsumer) || n != 5 {
		t.Fatalf("Send #%d = %v, want ErrSlowConsumer on #5", n, err)
	}
	if err := a.Send(pub(1)); !errors.Is(err, wamp.ErrClosed) {
		t.Fatalf("Send after = %v", err)
	}
	for range 4 {
		if _, err := b.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Recv(); !errors.Is(err, wamp.ErrSlowConsumer) {
		t.Fatalf("Recv = %v, want ErrSlowConsumer", err)
	}
}

func TestConcurrentSend(t *testing.T) {
	a, b := Pair(Options{MaxMessages: 100000})
	const senders, each = 8, 500
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				if err := a.Send(pub(s*each + i + 1)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	last := make([]int, senders)
	for range senders * each {
		m, err := b.Recv()
		if err != nil {
			t.Fatal(err)
		}
		id := int(m.(*wamp.Published).Request) - 1
		if s := id / each; id%each < last[s] {
			t.Fatalf("sender %d out of order", s)
		} else {
			last[s] = id % each
		}
	}
	wg.Wait()
	a.Close()
}

func BenchmarkSendRecv(b *testing.B) {
	x, y := Pair(Options{})
	m := pub(1)
	b.ReportAllocs()
	for b.Loop() {
		x.Send(m)
		y.Recv()
	}
}

func TestAfterFlush(t *testing.T) {
	a, b := Pair(Options{})
	defer a.Close()
	a.Send(pub(1))
	a.Send(pub(2))
	called := false
	a.(*Peer).AfterFlush(func() {
		called = true
		a.Send(pub(3))
	})
	if called {
		t.Fatal("fn called before the other end took what was sent")
	}
	for i := 1; i <= 3; i++ {
		m, err := b.Recv()
		if err != nil || m.(*wamp.Published).Request != wamp.ID(i) {
			t.Fatalf("Recv = %v, %v; want request %d", m, err, i)
		}
		if i == 1 && (!called || len(b.(*Peer).pending) != 1) {
			t.Fatalf("after the first Recv: called %v, %d pending; want fn called, and its message in a later batch", called, len(b.(*Peer).pending))
		}
	}
}

func TestAfterFlushIdleOrClosed(t *testing.T) {
	a, b := Pair(Options{})
	p := a.(*Peer)
	called := false
	p.AfterFlush(func() { called = true })
	if !called {
		t.Fatal("with nothing queued, fn was not called at once")
	}
	a.Send(pub(1))
	p.AfterFlush(func() { t.Error("fn called although the pair closed first") })
	a.Close()
	p.AfterFlush(func() { t.Error("fn called after Close") })
	if m, err := b.Recv(); err != nil || m.(*wamp.Published).Request != 1 {
		t.Fatalf("Recv after Close = %v, %v; want what was sent before", m, err)
	}
}
