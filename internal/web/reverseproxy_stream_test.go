package web

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// wsEchoUpstream is a WebSocket echo server; each upgrade's request URI is
// sent on uris, and each WebSocket's end on gone (when not nil).
func wsEchoUpstream(t *testing.T, uris chan<- string, gone chan<- struct{}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, _, err := ws.UpgradeHTTP(r, w)
		if err != nil {
			return
		}
		defer func() {
			conn.Close()
			if gone != nil {
				gone <- struct{}{}
			}
		}()
		uris <- r.RequestURI
		for {
			msg, op, err := wsutil.ReadClientData(conn)
			if err != nil {
				return
			}
			if err := wsutil.WriteServerMessage(conn, op, msg); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// rawUpstream is an upstream that answers a request asking to upgrade to
// h2c with 101 and then reads raw HTTP/1.1 requests on the same
// connection, as an upstream speaking h2c would take HTTP/2 frames, and
// answers each. Every request line it reads, on any connection, is sent on
// the returned channel. A request for websocket is answered 101 with
// "Upgrade: h2c" (which the proxy must not take).
func rawUpstream(t *testing.T) (string, <-chan string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan string, 16)
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go serveRaw(c, seen)
		}
	}()
	return l.Addr().String(), seen
}

func serveRaw(c net.Conn, seen chan<- string) {
	br := bufio.NewReader(c)
	for {
		r, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		seen <- r.Method + " " + r.RequestURI
		if r.Header.Get("Upgrade") != "" {
			io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n")
			continue
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret")
	}
}

// TestReverseProxyOnlyWebSocketUpgrades: F7's h2c attack (docs/SECURITY.md). A
// request to upgrade to anything but a WebSocket is refused with 400
// before it reaches the upstream, so that no tunnel opens through which a
// request outside the proxy's path (GET /internal/admin) would reach it;
// and a WebSocket upgrade that the upstream answers with another protocol
// fails (502).
func TestReverseProxyOnlyWebSocketUpgrades(t *testing.T) {
	onEngines(t, testReverseProxyOnlyWebSocketUpgrades)
}

func testReverseProxyOnlyWebSocketUpgrades(t *testing.T) {
	addr, seen := rawUpstream(t)
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	tree := NewTree()
	mustMount(t, tree, "app", mustProxy(t, ReverseProxyOptions{Host: host, Port: p, Path: "/app"}))
	front := serveTree(t, tree)
	for _, upgrade := range []string{"h2c", "H2C", "websocket, h2c", "h2c, websocket", "TLS/1.2", "foo", ","} {
		t.Run(upgrade, func(t *testing.T) {
			c, err := net.Dial("tcp", front)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(20 * time.Second))
			io.WriteString(c, "GET /app/x HTTP/1.1\r\nHost: x\r\nUpgrade: "+upgrade+
				"\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\nConnection: Upgrade\r\n\r\n")
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "only WebSocket upgrades") {
				// Without the refusal: 101, then the tunnel.
				io.WriteString(c, "GET /internal/admin HTTP/1.1\r\nHost: internal\r\n\r\n")
				var after []byte
				if next, err := http.ReadResponse(br, nil); err == nil {
					after, _ = io.ReadAll(next.Body)
				}
				t.Fatalf("got %d %q, then for GET /internal/admin %q; want 400", resp.StatusCode, body, after)
			}
		})
	}
	t.Run("websocket answered with h2c", func(t *testing.T) {
		resp, body := rawGet(t, front, "/app/ws", "Connection: Upgrade", "Upgrade: websocket",
			"Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==")
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("got %d %q, want 502", resp.StatusCode, body)
		}
	})
	select {
	case line := <-seen:
		if line != "GET /app/ws" {
			t.Errorf("the upstream saw %q; only the WebSocket upgrade may reach it", line)
		}
	default:
		t.Error("the WebSocket upgrade did not reach the upstream")
	}
	select {
	case line := <-seen:
		t.Errorf("the upstream also saw %q", line)
	default:
	}
}

func TestReverseProxyWebSocket(t *testing.T) { onEngines(t, testReverseProxyWebSocket) }

func testReverseProxyWebSocket(t *testing.T) {
	uris := make(chan string, 1)
	up := wsEchoUpstream(t, uris, nil)
	o := upstreamOptions(t, up)
	o.Path = "/base"
	tree := NewTree()
	mustMount(t, tree, "ws", mustProxy(t, o))
	addr := serveTree(t, tree)

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	conn, br, _, err := ws.Dial(ctx, "ws://"+addr+"/ws/echo?x=1")
	if err != nil {
		t.Fatalf("dial through the proxy: %v", err)
	}
	defer conn.Close()
	if br != nil {
		t.Fatalf("unexpected data after the handshake")
	}
	if uri := <-uris; uri != "/base/echo?x=1" {
		t.Errorf("upstream upgrade URI %q", uri)
	}
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	for i, msg := range []string{"hello", strings.Repeat("x", 200_000), ""} {
		op := ws.OpText
		if i == 1 {
			op = ws.OpBinary
		}
		if err := wsutil.WriteClientMessage(conn, op, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		got, gotOp, err := wsutil.ReadServerData(conn)
		if err != nil || string(got) != msg || gotOp != op {
			t.Fatalf("echo %d: %d bytes op %v err %v", i, len(got), gotOp, err)
		}
	}
}

// patternReader yields left bytes; when pauseAt bytes are left it waits
// for resumed (closed when the proxied response has begun), so that the
// test proves the body streamed through the proxy instead of being buffered
// or drained first.
type patternReader struct {
	left, pauseAt int64
	resumed       <-chan struct{}
	buf           []byte
}

func (r *patternReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	if r.left == r.pauseAt {
		select {
		case <-r.resumed:
		case <-time.After(10 * time.Second):
			return 0, errors.New("the upstream never answered before the body ended: not streamed")
		}
	}
	n := min(int64(len(p)), int64(len(r.buf)), r.left)
	if r.left > r.pauseAt {
		n = min(n, r.left-r.pauseAt) // stop exactly at pauseAt
	}
	copy(p, r.buf[:n])
	r.left -= n
	return int(n), nil
}

// countingUpstream reads 1 MiB of the body, answers "started" at once,
// reads the rest, and ends its answer with the byte count.
func countingUpstream(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.EnableFullDuplex()
		first, err := io.CopyN(io.Discard, r.Body, 1<<20)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "started\n")
		_ = rc.Flush()
		rest, err := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "%d %v\n", first+rest, err)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestReverseProxyStreamsBody sends bodies whose sender pauses until the
// upstream, which answers after the first MiB, has begun its answer. The
// second case fails without full duplex: net/http would drain the last
// 128 KiB (the client is still holding them) before sending the answer.
func TestReverseProxyStreamsBody(t *testing.T) { onEngines(t, testReverseProxyStreamsBody) }

func testReverseProxyStreamsBody(t *testing.T) {
	tests := []struct {
		name          string
		size, pauseAt int64
		checkAlloc    bool
	}{
		{"64MiB", 64 << 20, 32 << 20, true},
		{"tail under 256KiB", 1<<20 + 128<<10, 64 << 10, false},
	}
	up := countingUpstream(t)
	tree := NewTree()
	mustMount(t, tree, "up", mustProxy(t, upstreamOptions(t, up)))
	addr := serveTree(t, tree)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			got := postPaused(t, "http://"+addr+"/up/count", tt.size, tt.pauseAt)
			if want := "started\n" + strconv.FormatInt(tt.size, 10) + " <nil>\n"; got != want {
				t.Fatalf("upstream said %q, want %q", got, want)
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			// Client, proxy and upstream all run here: none of them may
			// have allocated the body.
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("allocated %d bytes while streaming %d", alloc, tt.size)
			if tt.checkAlloc && alloc > uint64(tt.size/4) {
				t.Errorf("allocated %d bytes while streaming %d", alloc, tt.size)
			}
		})
	}
}

// postPaused posts a patternReader body of size bytes to url and returns
// the answer; the body resumes after pauseAt once the answer has begun.
func postPaused(t *testing.T, url string, size, pauseAt int64) string {
	resumed := make(chan struct{})
	body := &patternReader{left: size, pauseAt: pauseAt, resumed: resumed, buf: make([]byte, 32<<10)}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	// Keep-alive matters: with "Connection: close", net/http would not
	// drain the body even without full duplex.
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	close(resumed)
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

func TestReverseProxyResponseStreams(t *testing.T) { onEngines(t, testReverseProxyResponseStreams) }

func testReverseProxyResponseStreams(t *testing.T) {
	next := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			_ = http.NewResponseController(w).Flush()
			select {
			case <-next:
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(up.Close)
	tree := NewTree()
	mustMount(t, tree, "/", mustProxy(t, upstreamOptions(t, up)))
	c, err := net.Dial("tcp", serveTree(t, tree))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	_, _ = io.WriteString(c, "GET /events HTTP/1.1\r\nHost: h\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewReader(resp.Body)
	for i := range 3 { // each event arrives before the upstream sends the next
		line, err := lines.ReadString('\n')
		if err != nil || line != fmt.Sprintf("data: %d\n", i) {
			t.Fatalf("event %d: %q %v", i, line, err)
		}
		_, _ = lines.ReadString('\n')
		next <- struct{}{}
	}
}

// TestReverseProxyShutdownUpgraded: Shutdown ends the WebSockets passing
// through on both sides, and a later upgrade is answered 503; a relay that
// ended by itself is forgotten.
func TestReverseProxyShutdownUpgraded(t *testing.T) { onEngines(t, testReverseProxyShutdownUpgraded) }

func testReverseProxyShutdownUpgraded(t *testing.T) {
	gone := make(chan struct{}, 3) // an upstream WebSocket ended
	up := wsEchoUpstream(t, make(chan string, 3), gone)
	p := mustProxy(t, upstreamOptions(t, up))
	tree := NewTree()
	mustMount(t, tree, "ws", p)
	addr := serveTree(t, tree)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	dial := func() net.Conn {
		t.Helper()
		conn, _, _, err := ws.Dial(ctx, "ws://"+addr+"/ws/")
		if err != nil {
			t.Fatalf("dial through the proxy: %v", err)
		}
		_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
		if err := wsutil.WriteClientMessage(conn, ws.OpText, []byte("hi")); err != nil {
			t.Fatal(err)
		}
		if got, _, err := wsutil.ReadServerData(conn); err != nil || string(got) != "hi" {
			t.Fatalf("echo: %q, %v", got, err)
		}
		return conn
	}
	waitGone := func(what string) {
		t.Helper()
		select {
		case <-gone:
		case <-ctx.Done():
			t.Fatalf("%s: the upstream's WebSocket is still open", what)
		}
	}

	ended := dial()
	ended.Close()
	waitGone("client closed")
	open := dial()
	defer open.Close()

	if err := p.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := wsutil.ReadServerData(open); err == nil {
		t.Fatal("read a message after Shutdown")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the client's connection is still open after Shutdown: %v", err)
	}
	waitGone("Shutdown")
	p.upgraded.mu.Lock()
	left := len(p.upgraded.ups)
	p.upgraded.mu.Unlock()
	if left != 0 {
		t.Errorf("%d connections still held after Shutdown", left)
	}

	_, _, _, err := ws.Dial(ctx, "ws://"+addr+"/ws/")
	var se ws.StatusError
	if !errors.As(err, &se) || int(se) != http.StatusServiceUnavailable {
		t.Errorf("upgrade after Shutdown: %v, want status 503", err)
	}
}

// TestReverseProxyShutdownUpgradedStuck: Shutdown also ends a relay that
// no read or write would end (the client half-closed, the upstream is
// silent), and an upgrade still waiting for the upstream's answer.
func TestReverseProxyShutdownUpgradedStuck(t *testing.T) {
	onEngines(t, testReverseProxyShutdownUpgradedStuck)
}

func testReverseProxyShutdownUpgradedStuck(t *testing.T) {
	tests := []struct {
		name     string
		answer   bool // the upstream upgrades (else it never answers)
		halfOpen bool // the client half-closes once upgraded
	}{
		{"client half-closed, upstream silent", true, true},
		{"upstream never answers the upgrade", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stop := make(chan struct{})
			reached := make(chan struct{}, 1) // the upgrade reached the upstream, in the state the test wants
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.answer {
					conn, _, _, err := ws.UpgradeHTTP(r, w)
					if err != nil {
						return
					}
					defer conn.Close()
					io.Copy(io.Discard, conn) // until the proxy passes the half-close on
				}
				reached <- struct{}{}
				<-stop
			}))
			t.Cleanup(up.Close)
			t.Cleanup(func() { close(stop) })
			h := mustProxy(t, upstreamOptions(t, up))
			done := make(chan struct{}) // the proxy's handler returned
			tree := NewTree()
			mustMount(t, tree, "ws", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				defer close(done)
				h.ServeHTTP(w, r)
			}))
			addr := serveTree(t, tree)
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			dialed := make(chan error, 1)
			go func() {
				conn, _, _, err := ws.Dial(ctx, "ws://"+addr+"/ws/")
				if err == nil {
					t.Cleanup(func() { conn.Close() })
					if tt.halfOpen {
						err = conn.(*net.TCPConn).CloseWrite()
					}
				}
				dialed <- err
			}()
			if tt.answer {
				if err := <-dialed; err != nil {
					t.Fatalf("dial through the proxy: %v", err)
				}
			}
			select {
			case <-reached:
			case <-ctx.Done():
				t.Fatal("the upgrade never reached the upstream")
			}
			if err := h.Shutdown(t.Context()); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-ctx.Done():
				t.Fatal("the relay is still running after Shutdown")
			}
			if !tt.answer {
				if err := <-dialed; err == nil {
					t.Error("the upgrade succeeded after Shutdown")
				}
			}
		})
	}
}
