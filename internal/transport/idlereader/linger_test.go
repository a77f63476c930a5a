package idlereader

import (
	"io"
	"net"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// recordConn records the size of each read and the read deadlines set.
type recordConn struct {
	net.Conn
	mu        sync.Mutex
	reads     []int
	deadlines []time.Time
}

func (c *recordConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	c.reads = append(c.reads, len(p))
	c.mu.Unlock()
	return c.Conn.Read(p)
}

func (c *recordConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadlines = append(c.deadlines, t)
	c.mu.Unlock()
	return c.Conn.SetReadDeadline(t)
}

// take returns the reads and deadlines recorded since the last take.
func (c *recordConn) take() (reads []int, deadlines []time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	reads, deadlines = c.reads, c.deadlines
	c.reads, c.deadlines = nil, nil
	return reads, deadlines
}

// readMessages reads 5-byte messages from r onto a channel until an error.
func readMessages(r io.Reader) <-chan string {
	got := make(chan string)
	go func() {
		defer close(got)
		for {
			buf := make([]byte, 5)
			if _, err := io.ReadFull(r, buf); err != nil {
				return
			}
			got <- string(buf)
		}
	}()
	return got
}

func oneByteReads(reads []int) int {
	n := 0
	for _, size := range reads {
		if size == 1 {
			n++
		}
	}
	return n
}

// TestKeepsBufferWhileBusy: on a connection with deadlines the buffer
// stays after a burst (no one-byte read for the next message) until the
// connection has been idle for Linger; the wait without a buffer then
// starts with a one-byte read again.
func TestKeepsBufferWhileBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := net.Pipe()
		defer b.Close()
		c := &recordConn{Conn: a}
		got := readMessages(New(c, nil))
		send := func(msg string) []int {
			t.Helper()
			b.Write([]byte(msg))
			if m := <-got; m != msg {
				t.Fatalf("read %q, want %q", m, msg)
			}
			synctest.Wait() // the reader waits for the next message
			reads, _ := c.take()
			return reads
		}
		if reads := send("hello"); oneByteReads(reads) != 1 {
			t.Fatalf("first message read with %v, want one one-byte read then the buffer", reads)
		}
		for range 3 {
			time.Sleep(Linger / 4) // fake time: busy, but less often than Linger
			if reads := send("again"); oneByteReads(reads) != 0 {
				t.Fatalf("a message on a busy connection read with %v, want the buffer only", reads)
			}
		}
		time.Sleep(Linger) // idle
		synctest.Wait()
		reads, deadlines := c.take()
		if oneByteReads(reads) != 1 || len(deadlines) == 0 || !deadlines[len(deadlines)-1].IsZero() {
			t.Fatalf("idle for Linger: reads %v, deadlines %v; want the buffer given back, "+
				"the deadline cleared and a one-byte read", reads, deadlines)
		}
		if reads := send("later"); oneByteReads(reads) != 0 {
			t.Fatalf("message after idle read with %v", reads)
		}
		a.Close()
		<-got
	})
}

// TestFixedGivesBackDrainedBuffer: after Fixed the Reader sets no more
// deadlines and gives its buffer back whenever it is drained.
func TestFixedGivesBackDrainedBuffer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := net.Pipe()
		defer b.Close()
		c := &recordConn{Conn: a}
		r := New(c, nil)
		r.Fixed()
		got := readMessages(r)
		for _, msg := range []string{"hello", "world"} {
			b.Write([]byte(msg))
			if m := <-got; m != msg {
				t.Fatalf("read %q, want %q", m, msg)
			}
			synctest.Wait()
			// The reader waits for the next message without a buffer.
			if reads, deadlines := c.take(); reads[len(reads)-1] != 1 || len(deadlines) != 0 {
				t.Fatalf("after Fixed: reads %v, deadlines %v; want the wait to be a one-byte read, no deadline", reads, deadlines)
			}
		}
		a.Close()
		<-got
	})
}

// TestIdle: Idle refuses while bytes wait in the Reader; once they are
// read it gives the buffer back and clears the deadline it set, so that
// the next read (after the connection was parked) is a one-byte read that
// no stale deadline interrupts.
func TestIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := net.Pipe()
		defer b.Close()
		c := &recordConn{Conn: a}
		r := New(c, nil)
		go b.Write([]byte("helloworld"))
		buf := make([]byte, 5)
		if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "hello" {
			t.Fatalf("read %q, %v", buf, err)
		}
		if r.Idle() {
			t.Fatal("Idle with 5 bytes buffered")
		}
		if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "world" {
			t.Fatalf("read %q, %v", buf, err)
		}
		c.take()
		if !r.Idle() {
			t.Fatal("not Idle once drained")
		}
		if _, deadlines := c.take(); len(deadlines) != 1 || !deadlines[0].IsZero() {
			t.Fatalf("Idle set deadlines %v, want the Reader's cleared", deadlines)
		}
		if r.br != nil {
			t.Fatal("Idle kept the buffer")
		}
		time.Sleep(2 * Linger) // fake time: parked for a while
		go b.Write([]byte("again"))
		if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "again" {
			t.Fatalf("read after Idle %q, %v", buf, err)
		}
		if reads, _ := c.take(); len(reads) == 0 || reads[0] != 1 {
			t.Fatalf("reads after Idle %v, want a one-byte read first", reads)
		}
		a.Close()
	})
}
