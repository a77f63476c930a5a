//go:build unix

package outbox

import (
	"bufio"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// tcpPair returns both ends of a loopback TCP connection, the first with a
// small send buffer so that direct writes fill it quickly.
func tcpPair(t *testing.T) (*net.TCPConn, *net.TCPConn) {
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
	a, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b := <-accepted
	if b == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	a.(*net.TCPConn).SetWriteBuffer(4096)
	b.(*net.TCPConn).SetReadBuffer(64 << 10)
	return a.(*net.TCPConn), b.(*net.TCPConn)
}

func TestDirectWriteOnSocket(t *testing.T) {
	a, _ := tcpPair(t)
	if o := New(a, nil, encodeID, writeLen, Options{}); o.raw == nil {
		t.Fatal("no raw connection for a TCP socket: frames would not be written directly")
	}
	p1, _ := net.Pipe()
	defer p1.Close()
	if o := New(p1, nil, encodeID, writeLen, Options{}); o.raw != nil {
		t.Fatal("a raw connection for a pipe")
	}
}

// TestDirectWriteKeepsOrder: senders writing directly into a socket that
// takes only part of what they write (the reader starts late, the buffers
// are small) queue the rest in front of the frames queued meanwhile, so
// every frame arrives, whole and in each sender's order.
func TestDirectWriteKeepsOrder(t *testing.T) {
	a, b := tcpPair(t)
	o := New(a, nil, encodeBig, writeLen, Options{})
	const senders, each = 4, 300
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				if err := o.SendNow(pub(s*each + i + 1)); err != nil {
					t.Errorf("Send: %v", err)
				}
			}
		})
	}
	wg.Wait() // all sent before anything is read: the socket is full
	last := make([]int, senders)
	r := bufio.NewReader(b)
	for range senders * each {
		f, err := readFrame(t, r)
		if err != nil {
			t.Fatal(err)
		}
		id := int(binary.BigEndian.Uint64(f.Data)) - 1
		if len(f.Data) != bigFrame || id < 0 || id >= senders*each {
			t.Fatalf("frame of %d bytes carries %d", len(f.Data), id)
		}
		s := id / each
		if id%each < last[s] {
			t.Fatalf("sender %d out of order: %d after %d", s, id%each, last[s])
		}
		last[s] = id % each
	}
	o.Close()
}

// TestDirectWriteSlowConsumer: a socket nobody reads fills up, and the
// queue behind it is bounded as without direct writes.
func TestDirectWriteSlowConsumer(t *testing.T) {
	a, _ := tcpPair(t)
	o := New(a, nil, encodeBig, writeLen, Options{MaxMessages: 10})
	var err error
	for sent := 0; sent < 100000 && err == nil; sent++ {
		err = o.SendNow(pub(sent + 1))
	}
	if !errors.Is(err, wamp.ErrSlowConsumer) {
		t.Fatalf("Send = %v, want ErrSlowConsumer", err)
	}
	o.Close()
}

// TestDirectWriteAfterFlush: AfterFlush on an idle outbox over a socket
// runs at once, and behind a frame written directly it runs after it.
func TestDirectWriteAfterFlush(t *testing.T) {
	a, b := tcpPair(t)
	o := New(a, nil, encodeBig, writeLen, Options{})
	defer o.Close()
	called := make(chan struct{})
	o.SendNow(pub(1))
	o.AfterFlush(func() { o.SendNow(pub(2)); close(called) })
	<-called
	r := bufio.NewReader(b)
	for want := 1; want <= 2; want++ {
		if f, err := readFrame(t, r); err != nil || binary.BigEndian.Uint64(f.Data) != uint64(want) {
			t.Fatalf("frame %d: %v", want, err)
		}
	}
}

// bigFrame is the size of encodeBig's frames: several make a partial write.
const bigFrame = 1000

// encodeBig encodes a PUBLISHED as its request ID padded to bigFrame bytes.
func encodeBig(m wamp.Message) ([]byte, error) {
	b := make([]byte, bigFrame)
	binary.BigEndian.PutUint64(b, uint64(m.(*wamp.Published).Request))
	return b, nil
}

// TestDirectWriteErrorCloses: a direct write into a connection the other
// side reset closes the outbox.
func TestDirectWriteErrorCloses(t *testing.T) {
	a, b := tcpPair(t)
	b.SetLinger(0) // close with a reset
	b.Close()
	o := New(a, nil, encodeBig, writeLen, Options{})
	defer o.Close()
	for i := 1; o.Err() == nil; i++ { // until the reset has arrived
		if err := o.SendNow(pub(i)); err != nil && !errors.Is(err, wamp.ErrClosed) {
			t.Fatalf("Send = %v", err)
		}
	}
	if errors.Is(o.Err(), wamp.ErrClosed) {
		t.Fatalf("Err = %v, want the write error", o.Err())
	}
}

// TestDirectWriteFiresTrafficWatch: the traffic watch fires for a frame
// written directly, off the sender's goroutine.
func TestDirectWriteFiresTrafficWatch(t *testing.T) {
	a, _ := tcpPair(t)
	var traffic wamp.Traffic
	fired := make(chan struct{})
	traffic.Watch(&wamp.TrafficWatch{At: 1, Fn: func() { close(fired) }})
	o := New(a, nil, encodeBig, writeLen, Options{Traffic: &traffic})
	defer o.Close()
	if err := o.SendNow(pub(1)); err != nil {
		t.Fatal(err)
	}
	<-fired
}
