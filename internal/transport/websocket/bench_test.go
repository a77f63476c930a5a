package websocket

import (
	"bufio"
	"fmt"
	"github.com/junction-wamp/junction/internal/transport/transporttest"
	"net"
	"runtime"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// BenchmarkSendRecv measures server Send -> client Recv of a small EVENT
// over msgpack on loopback, with up to 1,000 messages in flight.
func BenchmarkSendRecv(b *testing.B) {
	a := newAttacher()
	p := dial(b, serve(b, Options{Attacher: a}), DialOptions{Subprotocols: []string{"wamp.2.msgpack"}})
	s := <-a.Sessions
	defer close(s.Release)
	transporttest.BenchSendRecv(b, s.Peer, p)
}

// idleAttacher is a session that only waits in Recv, like an idle router
// session.
type idleAttacher struct{ attached, ended chan struct{} }

func (a *idleAttacher) Attach(p wamp.Peer) {
	a.attached <- struct{}{}
	p.Recv()
	p.Close()
	a.ended <- struct{}{}
}

// TestIdleConnectionMemory holds 1,000 idle WebSocket sessions and reports
// the server's heap and stack per connection. The clients are bare TCP
// connections that did the handshake by hand, so they add little.
func TestIdleConnectionMemory(t *testing.T) {
	const n = 1000
	a := &idleAttacher{attached: make(chan struct{}, n), ended: make(chan struct{}, n)}
	addr := strings.TrimPrefix(serve(t, Options{Attacher: a}), "ws://")
	before := memInUse()
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
		for range conns {
			<-a.ended
		}
	}()
	for range n {
		conns = append(conns, handshake(t, addr))
		<-a.attached
	}
	after := memInUse()
	perConn := (after.total() - before.total()) / n
	t.Logf("heap %.1f KiB, stack %.1f KiB per connection", float64(after.heap-before.heap)/n/1024, float64(after.stack-before.stack)/n/1024)
	t.Logf("%d idle WebSocket connections: %.1f KiB each (server heap + stacks, bare clients included)", n, float64(perConn)/1024)
	if limit := uint64(24 << 10); !raceEnabled && perConn > limit {
		t.Errorf("%d bytes per idle connection, want under %d", perConn, limit)
	}
}

type memUse struct{ heap, stack uint64 }

func (m memUse) total() uint64 { return m.heap + m.stack }

func memInUse() memUse {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memUse{heap: m.HeapInuse, stack: m.StackInuse}
}

// handshake opens a WebSocket connection with a hand-written request.
func handshake(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"+
		"Sec-WebSocket-Protocol: wamp.2.json\r\n\r\n", addr)
	status, err := bufio.NewReaderSize(c, 16).ReadString('\n')
	if err != nil || !strings.Contains(status, "101") {
		t.Fatalf("handshake: %q %v", status, err)
	}
	return c
}
