package outbox

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/junction-wamp/junction/wamp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var errTooBig = errors.New("too big")

// encodeID encodes a PUBLISHED as its 8-byte request ID; request 0 fails.
func encodeID(m wamp.Message) ([]byte, error) {
	p := m.(*wamp.Published)
	if p.Request == 0 {
		return nil, errTooBig
	}
	return binary.BigEndian.AppendUint64(nil, uint64(p.Request)), nil
}

// writeLen frames as kind byte + 4-byte length + data.
func writeLen(w *bufio.Writer, f Frame) error {
	var h [5]byte
	h[0] = f.Kind
	binary.BigEndian.PutUint32(h[1:], uint32(len(f.Data)))
	w.Write(h[:])
	_, err := w.Write(f.Data)
	return err
}

func readFrame(t *testing.T, r io.Reader) (Frame, error) {
	t.Helper()
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Frame{}, err
	}
	b := make([]byte, binary.BigEndian.Uint32(h[1:]))
	_, err := io.ReadFull(r, b)
	return Frame{Kind: h[0], Data: b}, err
}

// notifyConn reports Close on closed.
type notifyConn struct {
	net.Conn
	once   sync.Once
	closed chan struct{}
}

func (c *notifyConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

func pipe(t *testing.T) (*notifyConn, net.Conn) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return &notifyConn{Conn: a, closed: make(chan struct{})}, b
}

func pub(i int) *wamp.Published { return &wamp.Published{Request: wamp.ID(i), Publication: 1} }

func TestSendOrderAndClose(t *testing.T) {
	a, b := pipe(t)
	o := New(a, nil, encodeID, writeLen, Options{})
	const n = 100
	for i := 1; i <= n; i++ {
		if err := o.Send(pub(i)); err != nil {
			t.Fatalf("Send %d: %v", i, err)
		}
	}
	done := make(chan struct{})
	go func() { defer close(done); o.Close() }()
	r := bufio.NewReader(b)
	for i := 1; i <= n; i++ {
		f, err := readFrame(t, r)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if got := binary.BigEndian.Uint64(f.Data); got != uint64(i) {
			t.Fatalf("frame %d carries %d", i, got)
		}
	}
	if _, err := readFrame(t, r); err != io.EOF {
		t.Fatalf("after Close read %v, want EOF", err)
	}
	<-done
	if err := o.Send(pub(1)); !errors.Is(err, wamp.ErrClosed) {
		t.Fatalf("Send after Close = %v, want ErrClosed", err)
	}
}

func TestSlowConsumer(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		minMsgs int // the fewest queued messages the error may report
	}{
		{"messages", Options{MaxMessages: 10}, 1},
		// The bytes count the batch the writer holds in its flush too,
		// the messages only those queued behind it: the writer may hold
		// every one of them when the limit is passed.
		{"bytes", Options{MaxBytes: 80}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := pipe(t) // nobody reads the other end
			o := New(a, nil, encodeID, writeLen, tt.opts)
			var err error
			sent := 0
			for ; sent < 1000 && err == nil; sent++ {
				err = o.Send(pub(sent + 1))
			}
			if !errors.Is(err, wamp.ErrSlowConsumer) {
				t.Fatalf("Send = %v after %d, want ErrSlowConsumer", err, sent)
			}
			// The writer may hold one batch (at most the limit: 10
			// frames) blocked in its flush while 10 more queue up; the
			// next Send is the one refused.
			if sent > 2*10+1 {
				t.Fatalf("queue grew to %d messages", sent)
			}
			full, ok := errors.AsType[*wamp.SlowConsumerError](err)
			if !ok || full.QueuedMessages < tt.minMsgs || full.QueuedMessages > 10 || full.QueuedBytes < 1 || full.QueuedBytes > 1000 {
				t.Errorf("Send = %#v, want a SlowConsumerError with what the queue held", err)
			}
			<-a.closed
			if err := o.Send(pub(1)); !errors.Is(err, wamp.ErrClosed) {
				t.Fatalf("Send after slow consumer = %v, want ErrClosed", err)
			}
			if !errors.Is(o.Err(), wamp.ErrSlowConsumer) {
				t.Fatalf("Err = %v", o.Err())
			}
			o.Close()
		})
	}
}

func TestEncodeErrorKeepsOpen(t *testing.T) {
	a, b := pipe(t)
	o := New(a, nil, encodeID, writeLen, Options{})
	if err := o.Send(pub(0)); !errors.Is(err, ErrEncode) || !errors.Is(err, errTooBig) {
		t.Fatalf("Send = %v, want ErrEncode wrapping errTooBig", err)
	}
	if err := o.Send(pub(7)); err != nil {
		t.Fatalf("Send after encode error: %v", err)
	}
	f, err := readFrame(t, b)
	if err != nil || binary.BigEndian.Uint64(f.Data) != 7 {
		t.Fatalf("read %v %v", f, err)
	}
	o.Close()
}

func TestWriteErrorCloses(t *testing.T) {
	a, b := pipe(t)
	o := New(a, nil, encodeID, writeLen, Options{})
	b.Close()
	if err := o.Send(pub(1)); err != nil {
		t.Fatalf("first Send: %v", err)
	}
	<-a.closed
	if err := o.Send(pub(2)); !errors.Is(err, wamp.ErrClosed) {
		t.Fatalf("Send after write error = %v", err)
	}
	if o.Err() == nil {
		t.Fatal("Err = nil after write error")
	}
	o.Close()
}

func TestCloseTimeoutWithStuckReader(t *testing.T) {
	a, _ := pipe(t)
	o := New(a, nil, encodeID, writeLen, Options{CloseTimeout: 20 * time.Millisecond})
	o.Send(pub(1))
	o.Close() // must return although nobody reads
	<-a.closed
}

func TestCloseWithFinalFrame(t *testing.T) {
	a, b := pipe(t)
	bw := bufio.NewWriterSize(a, 64)
	o := New(a, bw, encodeID, writeLen, Options{MaxMessages: 1})
	o.Send(pub(3))
	go o.CloseWith(&Frame{Kind: 9, Data: []byte("bye")})
	r := bufio.NewReader(b)
	f1, _ := readFrame(t, r)
	f2, err := readFrame(t, r)
	if err != nil || f1.Kind != KindData || f2.Kind != 9 || string(f2.Data) != "bye" {
		t.Fatalf("frames %v %v, %v", f1, f2, err)
	}
	o.Close()
}

func TestConcurrentSend(t *testing.T) {
	a, b := pipe(t)
	o := New(a, nil, encodeID, writeLen, Options{})
	const senders, each = 8, 200
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				if err := o.Send(pub(s*each + i + 1)); err != nil {
					t.Errorf("Send: %v", err)
				}
			}
		})
	}
	last := make([]int, senders)
	r := bufio.NewReader(b)
	for range senders * each {
		f, err := readFrame(t, r)
		if err != nil {
			t.Fatal(err)
		}
		id := int(binary.BigEndian.Uint64(f.Data)) - 1
		s := id / each
		if id%each < last[s] {
			t.Fatalf("sender %d out of order: %d after %d", s, id%each, last[s])
		}
		last[s] = id % each
	}
	wg.Wait()
	o.Close()
}

func TestAfterFlush(t *testing.T) {
	tests := []struct {
		name   string
		before int // frames queued before AfterFlush
	}{
		{"behind a queued batch", 3},
		{"behind the batch being written", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := pipe(t)
			o := New(a, nil, encodeID, writeLen, Options{})
			defer o.Close()
			for i := 1; i <= tt.before; i++ {
				o.Send(pub(i))
			}
			called := make(chan struct{})
			o.AfterFlush(func() {
				o.Send(pub(99)) // goes out in a later write
				close(called)
			})
			// net.Pipe: the writer's flush returns only once every byte
			// it wrote was read, so fn cannot run before the last frame
			// queued before it has been read.
			r := bufio.NewReaderSize(b, 16)
			for i := 1; i <= tt.before; i++ {
				select {
				case <-called:
					t.Fatalf("fn called before frame %d was read", i)
				default:
				}
				if f, err := readFrame(t, r); err != nil || binary.BigEndian.Uint64(f.Data) != uint64(i) {
					t.Fatalf("frame %d: %v %v", i, f, err)
				}
			}
			<-called
			if f, err := readFrame(t, r); err != nil || binary.BigEndian.Uint64(f.Data) != 99 {
				t.Fatalf("frame sent by fn: %v %v", f, err)
			}
		})
	}
}

func TestAfterFlushIdleOrClosed(t *testing.T) {
	a, _ := pipe(t)
	o := New(a, nil, encodeID, writeLen, Options{})
	called := false
	o.AfterFlush(func() { called = true })
	if !called {
		t.Fatal("with nothing queued, fn was not called at once")
	}
	o.Close()
	o.AfterFlush(func() { t.Error("fn called after Close") })
}
