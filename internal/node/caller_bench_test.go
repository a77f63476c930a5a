package node

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// BenchmarkHTTPCaller drives the whole path of scripts/bench-http.sh's
// Caller rows in one process: a keep-alive HTTP/1.1 client on loopback
// posts {"procedure":"com.bench.echo","args":[42]} to a node's Caller (on
// the web transport's default engine, or JUNCTION_TEST_HTTP_ENGINE's),
// which calls a Go callee over WebSocket with MessagePack (as
// test/bench/loadpeer does) and answers 200. The client writes a fixed
// request and reads the answer with a bufio.Reader, so the allocations
// per operation are the node's and the callee's.
func BenchmarkHTTPCaller(b *testing.B) {
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"paths": {"ws": {"type": "websocket"}, "call": {"type": "caller", "realm": "realm1", "role": "anonymous"}}}]}]}`
	n := benchNode(b, doc)
	ctx := context.Background()
	addr := n.Listeners()[0].Address
	p, err := websocket.Dial(ctx, "ws://"+addr+"/ws", websocket.DialOptions{Subprotocols: []string{"wamp.2.msgpack"}})
	if err != nil {
		b.Fatal(err)
	}
	callee, err := client.Join(ctx, p, client.Config{Realm: "realm1"})
	if err != nil {
		b.Fatal(err)
	}
	defer callee.Close()
	echo := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: inv.Args, Kwargs: inv.Kwargs}, nil
	}
	if _, err := callee.Register(ctx, "com.bench.echo", echo, nil); err != nil {
		b.Fatal(err)
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	const body = `{"procedure":"com.bench.echo","args":[42]}`
	req := []byte(fmt.Sprintf("POST /call HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body))
	br := bufio.NewReader(conn)
	answer := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := conn.Write(req); err != nil {
			b.Fatal(err)
		}
		var err error
		if answer, err = readAnswer(br, answer[:0]); err != nil {
			b.Fatal(err)
		}
	}
	if got := string(answer); got != `{"args":[42]}` {
		b.Fatalf("answer %q", got)
	}
}

// readAnswer reads one HTTP/1.1 answer with a Content-Length from br and
// appends its body to buf; it fails on any status but 200.
func readAnswer(br *bufio.Reader, buf []byte) ([]byte, error) {
	size := -1
	for first := true; ; first = false {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return buf, err
		}
		if first && !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
			return buf, fmt.Errorf("status line %q", line)
		}
		if len(line) <= 2 {
			break
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
			if size, err = strconv.Atoi(string(bytes.TrimSpace(v))); err != nil {
				return buf, err
			}
		}
	}
	if size < 0 {
		return buf, fmt.Errorf("no Content-Length")
	}
	start := len(buf)
	buf = append(buf, make([]byte, size)...)
	_, err := io.ReadFull(br, buf[start:])
	return buf, err
}
