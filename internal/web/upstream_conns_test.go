package web

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// countedUpstream starts a loopback server for h and counts the
// connections it accepts.
func countedUpstream(t testing.TB, h http.Handler) (*httptest.Server, *atomic.Int64) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// countDials makes p's direct path dial with dial, counting the dials.
func countDials(p *ReverseProxy, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *atomic.Int64 {
	var dials atomic.Int64
	p.conns.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return dial(ctx, network, addr)
	}
	return &dials
}

// testProxy returns a proxy to srv whose direct-path dials are counted.
func testProxy(t testing.TB, srv *httptest.Server, timeout time.Duration) (*ReverseProxy, *atomic.Int64) {
	o := upstreamOptions(t, srv)
	o.Timeout = timeout
	p := mustProxy(t, o)
	return p, countDials(p, p.conns.dial)
}

// pipeProxy returns a proxy to "up.test" whose direct path dials
// in-memory pipes, the far end of each served by serve on a goroutine
// that the cleanup waits for; dials counts them.
func pipeProxy(t testing.TB, timeout time.Duration, serve func(net.Conn)) (*ReverseProxy, *atomic.Int64) {
	p := mustProxy(t, ReverseProxyOptions{Host: "up.test", Timeout: timeout})
	var wg sync.WaitGroup
	t.Cleanup(func() {
		_ = p.Shutdown(context.Background())
		wg.Wait()
	})
	return p, countDials(p, func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		wg.Go(func() {
			defer server.Close()
			serve(server)
		})
		return client, nil
	})
}

// answerOnce reads one request, writes raw, then waits for the other end
// to close the connection.
func answerOnce(raw string) func(net.Conn) {
	return func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		_, _ = io.WriteString(c, raw)
		_, _ = io.Copy(io.Discard, c)
	}
}

// answerEach answers every request on the connection with raw.
func answerEach(raw string) func(net.Conn) {
	return func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			if _, err := io.WriteString(c, raw); err != nil {
				return
			}
		}
	}
}

// answerInTwo answers the first request with first, then, a second later,
// second (an upstream whose answer comes in two writes).
func answerInTwo(first, second string) func(net.Conn) {
	return func(c net.Conn) {
		br := bufio.NewReader(c)
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		_, _ = io.WriteString(c, first)
		time.Sleep(time.Second) // the upstream's pause, in the test's fake time
		_, _ = io.WriteString(c, second)
		_, _ = io.Copy(io.Discard, br)
	}
}

// answer is what a proxy's handler answered to one request.
type answer struct {
	*httptest.ResponseRecorder
	info    []string      // informational answers, as "103 <Link header>"
	aborted bool          // the handler ended the answer with http.ErrAbortHandler
	wrote   chan struct{} // if not nil, closed by the first Write
}

// Write records body bytes.
func (a *answer) Write(p []byte) (int, error) {
	if a.wrote != nil {
		close(a.wrote)
		a.wrote = nil
	}
	return a.ResponseRecorder.Write(p)
}

// WriteHeader records an informational answer apart from the final one.
func (a *answer) WriteHeader(code int) {
	if code < 200 {
		a.info = append(a.info, strconv.Itoa(code)+" "+a.Header().Get("Link"))
		return
	}
	a.ResponseRecorder.WriteHeader(code)
}

// fetch serves a bodiless request for target with p's handler, as net/http
// would, and returns the answer.
func fetch(ctx context.Context, p *ReverseProxy, method, target string) *answer {
	return fetchTo(ctx, p, method, target, &answer{ResponseRecorder: httptest.NewRecorder()})
}

// fetchTo is fetch into a.
func fetchTo(ctx context.Context, p *ReverseProxy, method, target string, a *answer) *answer {
	r := httptest.NewRequestWithContext(ctx, method, target, nil)
	func() {
		defer func() {
			if v := recover(); v != nil {
				if v != http.ErrAbortHandler {
					panic(v)
				}
				a.aborted = true
			}
		}()
		p.ServeHTTP(a, r)
	}()
	return a
}

// mustFetch is fetch of a request that must be answered 2xx or 3xx.
func mustFetch(t testing.TB, p *ReverseProxy, method, target string) string {
	t.Helper()
	a := fetch(context.Background(), p, method, target)
	if a.Code >= 400 || a.aborted {
		t.Fatalf("%s %s: %d %q (aborted %v)", method, target, a.Code, a.Body, a.aborted)
	}
	return a.Body.String()
}

// idleCount is the number of idle direct-path connections.
func idleCount(p *ReverseProxy) int {
	p.conns.idle.mu.Lock()
	defer p.conns.idle.mu.Unlock()
	return len(p.conns.idle.conns)
}

func TestUpstreamConnsReuse(t *testing.T) {
	hello := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5")
		_, _ = io.WriteString(w, "hello")
	}
	tests := []struct {
		name      string
		method    string // of the 1st and 3rd request; the 2nd is a GET of hello
		handler   http.HandlerFunc
		wantBody  string
		wantConns int64
		wantIdle  int
	}{
		{"content length", "GET", hello, "hello", 1, 1},
		{"chunked", "GET", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "hel")
			_ = http.NewResponseController(w).Flush() // no Content-Length now: chunked
			_, _ = io.WriteString(w, "lo")
		}, "hello", 1, 1},
		{"empty", "GET", func(w http.ResponseWriter, r *http.Request) {}, "", 1, 1},
		{"not modified", "GET", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNotModified)
		}, "", 1, 1},
		{"head with length", "HEAD", hello, "", 1, 1},
		{"connection close", "GET", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			hello(w, r)
		}, "hello", 2, 0}, // the 2nd connection serves the 2nd and 3rd request
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int64
			srv, conns := countedUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == 2 {
					hello(w, r)
					return
				}
				tt.handler(w, r)
			}))
			p, dials := testProxy(t, srv, time.Minute)
			for i, method := range []string{tt.method, "GET", tt.method} {
				want := tt.wantBody
				if i == 1 {
					want = "hello"
				}
				if body := mustFetch(t, p, method, "/"); body != want {
					t.Errorf("request %d: body %q, want %q", i, body, want)
				}
			}
			if conns.Load() != tt.wantConns || dials.Load() != tt.wantConns || idleCount(p) != tt.wantIdle {
				t.Errorf("%d connections, %d dials, %d idle; want %d, %d, %d",
					conns.Load(), dials.Load(), idleCount(p), tt.wantConns, tt.wantConns, tt.wantIdle)
			}
		})
	}
}

// TestReverseProxyDirectPath: bodiless GET and HEAD requests without an
// upgrade take the direct path; the others go through httputil and its
// http.Transport, which dials on its own.
func TestReverseProxyDirectPath(t *testing.T) {
	srv, _ := countedUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "%s %d", r.Method, n)
	}))
	tests := []struct {
		method, body, upgrade string
		wantDials             int64
	}{
		{"GET", "", "", 1},
		{"HEAD", "", "", 1},
		{"POST", "abc", "", 0},
		{"GET", "abc", "", 0},
		{"PUT", "", "", 0},
		{"DELETE", "", "", 0},
		{"GET", "", "websocket", 0},
	}
	for _, tt := range tests {
		p, dials := testProxy(t, srv, time.Minute)
		var body io.Reader
		if tt.body != "" {
			body = strings.NewReader(tt.body)
		}
		r := httptest.NewRequest(tt.method, "/", body)
		if tt.upgrade != "" {
			r.Header.Set("Connection", "Upgrade")
			r.Header.Set("Upgrade", tt.upgrade)
		}
		w := httptest.NewRecorder()
		p.ServeHTTP(w, r)
		want := fmt.Sprintf("%s %d", tt.method, len(tt.body))
		if tt.method == "HEAD" {
			want = ""
		}
		if w.Code != http.StatusOK || w.Body.String() != want || dials.Load() != tt.wantDials {
			t.Errorf("%s body %q upgrade %q: %d %q, %d direct dials; want %q, %d dials",
				tt.method, tt.body, tt.upgrade, w.Code, w.Body, dials.Load(), want, tt.wantDials)
		}
	}
}

func TestReverseProxyReusesUpstreamConnections(t *testing.T) {
	onEngines(t, testReverseProxyReusesUpstreamConnections)
}

func testReverseProxyReusesUpstreamConnections(t *testing.T) {
	up, conns := countedUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Path)
	}))
	tree := NewTree()
	mustMount(t, tree, "/", mustProxy(t, upstreamOptions(t, up)))
	addr := serveTree(t, tree)
	for i := range 5 {
		path := "/r" + strconv.Itoa(i)
		if resp, body := rawGet(t, addr, path); resp.StatusCode != http.StatusOK || string(body) != path {
			t.Errorf("GET %s: %d %q", path, resp.StatusCode, body)
		}
	}
	want := int64(1)
	if testEngine(t) == EngineLoop {
		want = frontLoops // each loop keeps its own, and each new client connection goes to the next loop
	}
	if n := conns.Load(); n != want {
		t.Errorf("5 sequential GETs used %d upstream connections, want %d", n, want)
	}
}

func TestUpstreamConnsStaleConnection(t *testing.T) {
	closed := make(chan struct{}, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			closed <- struct{}{}
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	p, dials := testProxy(t, srv, time.Minute)
	mustFetch(t, p, "GET", "/1")
	srv.Config.SetKeepAlivesEnabled(false) // closes the idle connection
	<-closed
	if body := mustFetch(t, p, "GET", "/2"); body != "ok" {
		t.Errorf("after the upstream closed the idle connection: %q", body)
	}
	if dials.Load() != 2 {
		t.Errorf("%d dials, want 2 (the retry's)", dials.Load())
	}
}

func TestUpstreamConnsNoRetry(t *testing.T) {
	tests := []struct {
		name  string
		serve func(net.Conn)
	}{
		{"fresh connection closed", func(c net.Conn) {}},
		{"reused connection broken mid-response", func(c net.Conn) {
			br := bufio.NewReader(c)
			for _, raw := range []string{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "HTTP/1.1 200 OK\r\n"} {
				if _, err := http.ReadRequest(br); err != nil {
					return
				}
				_, _ = io.WriteString(c, raw)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, dials := pipeProxy(t, time.Minute, tt.serve)
			if strings.HasPrefix(tt.name, "reused") {
				mustFetch(t, p, "GET", "/")
			}
			if a := fetch(context.Background(), p, "GET", "/"); a.Code != http.StatusBadGateway || dials.Load() != 1 {
				t.Errorf("%d %q, %d dials; want 502 and 1 dial", a.Code, a.Body, dials.Load())
			}
		})
	}
}

func TestUpstreamConnsHeaderTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _ := pipeProxy(t, time.Second, func(c net.Conn) {
			_, _ = io.Copy(io.Discard, c) // never answers
		})
		if a := fetch(context.Background(), p, "GET", "/"); a.Code != http.StatusGatewayTimeout {
			t.Fatalf("%d %q, want 504", a.Code, a.Body)
		}
		if n := idleCount(p); n != 0 {
			t.Errorf("%d idle connections after a timeout, want 0", n)
		}
	})
}

func TestUpstreamConnsSlowBodyAfterHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _ := pipeProxy(t, time.Second, func(c net.Conn) {
			br := bufio.NewReader(c)
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
			time.Sleep(5 * time.Second) // longer than the header timeout
			_, _ = io.WriteString(c, "hello")
			_, _ = io.Copy(io.Discard, br)
		})
		if body := mustFetch(t, p, "GET", "/"); body != "hello" {
			t.Errorf("body %q", body)
		}
		if n := idleCount(p); n != 1 {
			t.Errorf("%d idle connections, want 1", n)
		}
	})
}

func TestUpstreamConnsIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ended atomic.Int64
		p, dials := pipeProxy(t, time.Second, func(c net.Conn) {
			answerEach("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")(c)
			ended.Add(1)
		})
		mustFetch(t, p, "GET", "/")
		time.Sleep(upstreamIdleTimeout - time.Second)
		synctest.Wait()
		if ended.Load() != 0 || idleCount(p) != 1 {
			t.Fatalf("before the idle timeout: %d closed, %d idle", ended.Load(), idleCount(p))
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if ended.Load() != 1 || idleCount(p) != 0 {
			t.Errorf("after the idle timeout: %d closed, %d idle; want 1, 0", ended.Load(), idleCount(p))
		}
		mustFetch(t, p, "GET", "/")
		if dials.Load() != 2 {
			t.Errorf("%d dials, want 2", dials.Load())
		}
	})
}

func TestIdlePool(t *testing.T) {
	t0 := time.Now()
	tests := []struct {
		name     string
		puts     int
		getAt    time.Duration // after t0
		wantGot  bool
		wantIdle int // after the get
	}{
		{"newest taken", 3, time.Second, true, 1},
		{"all expired", 3, 2 * time.Minute, false, 0},
		{"capped", 4, time.Second, true, 1},
		{"empty", 0, 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &idlePool{max: 2, timeout: time.Minute}
			t.Cleanup(p.closeAll)
			var conns []*upstreamConn
			for i := range tt.puts {
				a, b := net.Pipe()
				t.Cleanup(func() { b.Close() })
				conns = append(conns, newUpstreamConn(a))
				p.put(conns[i], t0.Add(time.Duration(i)*time.Millisecond))
			}
			got := p.get(t0.Add(tt.getAt))
			if (got != nil) != tt.wantGot || len(p.conns) != tt.wantIdle {
				t.Fatalf("got %v, %d idle; want %v, %d", got != nil, len(p.conns), tt.wantGot, tt.wantIdle)
			}
			if got != nil && got != conns[min(tt.puts, p.max)-1] {
				t.Errorf("took not the newest connection")
			}
			for i, c := range conns {
				err := c.conn.SetDeadline(time.Time{})
				if isClosed := errors.Is(err, io.ErrClosedPipe); isClosed != (c != got && !slices.Contains(p.conns, c)) {
					t.Errorf("connection %d: closed %v", i, isClosed)
				}
			}
		})
	}
}

// TestUpstreamConnsClientGone: when the client goes away (its request's
// context ends) while the upstream is slow to answer, or during the body,
// the upstream connection is closed, not reused.
func TestUpstreamConnsClientGone(t *testing.T) {
	tests := []struct {
		name       string
		duringBody bool // the upstream sends headers and "part" first
	}{
		{"before the response", false},
		{"during the body", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arrived, aborted := make(chan struct{}), make(chan struct{})
			srv, conns := countedUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/next" {
					return
				}
				if tt.duringBody {
					_, _ = io.WriteString(w, "part")
					_ = http.NewResponseController(w).Flush()
				}
				close(arrived)
				<-r.Context().Done() // the proxy closed the connection
				close(aborted)
			}))
			p, _ := testProxy(t, srv, time.Minute)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan *answer, 1)
			wrote := make(chan struct{})
			go func() {
				done <- fetchTo(ctx, p, "GET", "/slow", &answer{ResponseRecorder: httptest.NewRecorder(), wrote: wrote})
			}()
			<-arrived
			if tt.duringBody {
				<-wrote // "part" reached the client
			}
			cancel()
			a := <-done
			if tt.duringBody && !a.aborted || !tt.duringBody && a.Code != http.StatusBadGateway {
				t.Errorf("answer %d %q, aborted %v", a.Code, a.Body, a.aborted)
			}
			<-aborted
			mustFetch(t, p, "GET", "/next")
			if n := conns.Load(); n != 2 {
				t.Errorf("%d upstream connections, want 2 (the aborted one not reused)", n)
			}
		})
	}
}

// failingWriter is a ResponseWriter whose client is gone: writes fail.
type failingWriter struct{ *httptest.ResponseRecorder }

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("client gone") }

// TestUpstreamConnsClientWriteFails: when the answer cannot be written to
// the client, the handler aborts and the upstream connection, whose body
// was not read to its end, is closed.
func TestUpstreamConnsClientWriteFails(t *testing.T) {
	p, dials := pipeProxy(t, time.Minute, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
			if _, err := c.Write(make([]byte, 100000)); err != nil {
				return
			}
		}
	})
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", v)
		}
		if n := idleCount(p); n != 0 {
			t.Errorf("%d idle connections after a failed write, want 0", n)
		}
		if body := mustFetch(t, p, "GET", "/"); len(body) != 100000 || dials.Load() != 2 {
			t.Errorf("next body: %d bytes, %d dials", len(body), dials.Load())
		}
	}()
	p.ServeHTTP(failingWriter{httptest.NewRecorder()}, httptest.NewRequest("GET", "/", nil))
}

func TestUpstreamConnsInformational(t *testing.T) {
	p, _ := pipeProxy(t, time.Minute, answerEach("HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n"+
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	for range 2 {
		a := fetch(context.Background(), p, "GET", "/")
		if a.Code != http.StatusOK || a.Body.String() != "ok" {
			t.Fatalf("%d %q, want 200 ok", a.Code, a.Body)
		}
		if want := []string{"103 </s.css>", "100 "}; !slices.Equal(a.info, want) {
			t.Errorf("1xx passed on: %q, want %q", a.info, want)
		}
		if a.Header().Get("Link") != "" {
			t.Errorf("the 103's Link header is in the final answer")
		}
	}
	if n := idleCount(p); n != 1 {
		t.Errorf("%d idle connections, want 1", n)
	}
}

func TestUpstreamConnsBadResponses(t *testing.T) {
	tests := []struct {
		name      string
		method    string
		raw       string
		wantCode  int
		wantAbort bool
		wantIdle  int
	}{
		{"status below 100", "GET", "HTTP/1.1 099 Odd\r\nContent-Length: 0\r\n\r\n", 502, false, 0},
		{"unrequested switch", "GET", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", 502, false, 0},
		{"garbage", "GET", "hello\r\n\r\n", 502, false, 0},
		{"headers too large", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: " + strings.Repeat("a", 200) + "\r\n\r\n", 502, false, 0},
		{"endless 1xx", "GET", strings.Repeat("HTTP/1.1 103 Early Hints\r\n\r\n", upstreamMax1xx+1), 502, false, 0},
		{"truncated body", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", 200, true, 0},
		{"body after HEAD", "HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, false, 0},
		{"well formed", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			serve := answerOnce(tt.raw)
			if tt.name == "truncated body" {
				serve = func(c net.Conn) { // closes the connection after the response
					if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
						_, _ = io.WriteString(c, tt.raw)
					}
				}
			}
			p, _ := pipeProxy(t, time.Minute, serve)
			p.conns.maxHdr = 128
			a := fetch(context.Background(), p, tt.method, "/")
			if a.Code != tt.wantCode || a.aborted != tt.wantAbort {
				t.Errorf("%d %q, aborted %v; want %d, aborted %v", a.Code, a.Body, a.aborted, tt.wantCode, tt.wantAbort)
			}
			if n := idleCount(p); n != tt.wantIdle {
				t.Errorf("%d idle connections, want %d", n, tt.wantIdle)
			}
		})
	}
}

// TestReverseProxyDirectRequestHead: the head written on the direct path,
// byte for byte.
func TestReverseProxyDirectRequestHead(t *testing.T) {
	heads := make(chan string, 1)
	p, _ := pipeProxy(t, time.Minute, func(c net.Conn) {
		br := bufio.NewReader(c)
		var head strings.Builder
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			head.WriteString(line)
			if line == "\r\n" {
				break
			}
		}
		heads <- head.String()
		_, _ = io.WriteString(c, "HTTP/1.1 204 No Content\r\n\r\n")
		_, _ = io.Copy(io.Discard, br)
	})
	r := httptest.NewRequest("GET", "/a%2Fb?q=1", nil)
	r.Header.Set("Accept", "*/*")
	r.Header.Set("Connection", "keep-alive, X-Hop")
	r.Header.Set("X-Hop", "dropped")
	r.Header.Set("Content-Length", "0")
	r.Header.Set("TE", "trailers, deflate")
	r.Header.Set("X-Forwarded-For", "10.0.0.1")
	p.ServeHTTP(httptest.NewRecorder(), r)
	want := "GET /a%2Fb?q=1 HTTP/1.1\r\nHost: up.test\r\nAccept: */*\r\nTe: trailers\r\n" +
		"X-Forwarded-For: 10.0.0.1, 192.0.2.1\r\nX-Forwarded-Host: example.com\r\nX-Forwarded-Proto: http\r\n" +
		"X-Real-Ip: 192.0.2.1\r\n\r\n"
	if got := <-heads; got != want {
		t.Errorf("upstream got %q, want %q", got, want)
	}
}

func TestUpstreamConnsConcurrent(t *testing.T) {
	srv, _ := countedUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Path)
	}))
	p, _ := testProxy(t, srv, time.Minute)
	const workers, each = 50, 100
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				path := fmt.Sprintf("/%d/%d", w, i)
				if a := fetch(context.Background(), p, "GET", path); a.Code != http.StatusOK || a.Body.String() != path {
					errs <- fmt.Errorf("GET %s: %d %q", path, a.Code, a.Body)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := idleCount(p); n < 1 || n > workers {
		t.Errorf("%d idle connections, want 1..%d", n, workers)
	}
}

// FuzzUpstreamResponse feeds arbitrary upstream bytes to the direct path:
// an answer (perhaps aborted), never a panic or a hang.
func FuzzUpstreamResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-T: 1\r\n\r\n",
		"HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\nclose-delimited",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 101 Switching\r\n\r\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, _ := pipeProxy(t, time.Minute, func(c net.Conn) {
			if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
				_, _ = io.WriteString(c, raw)
			}
		})
		fetch(context.Background(), p, "GET", "/")
	})
}

func TestUpstreamConnsTrailer(t *testing.T) {
	p, _ := pipeProxy(t, time.Minute, answerEach("HTTP/1.1 200 OK\r\nTrailer: X-T\r\nTransfer-Encoding: chunked\r\n\r\n"+
		"2\r\nok\r\n0\r\nX-T: 1\r\nX-Late: 2\r\n\r\n"))
	a := fetch(context.Background(), p, "GET", "/")
	res := a.Result()
	if a.Body.String() != "ok" || res.Trailer.Get("X-T") != "1" || res.Trailer.Get("X-Late") != "2" {
		t.Errorf("body %q, trailer %v", a.Body, res.Trailer)
	}
	if n := idleCount(p); n != 1 {
		t.Errorf("%d idle connections, want 1", n)
	}
}

// TestUpstreamConnsAbortArmed: an exchange arms the abort on the
// request's context (a context.AfterFunc) only when it has to wait on the
// upstream: for an answer not there after upstreamAbortDelay, a body not
// there with its head, the final answer after an informational one, or
// the write of a large request head. The answer is the same either way.
func TestUpstreamConnsAbortArmed(t *testing.T) {
	const ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	tests := []struct {
		name      string
		timeout   time.Duration
		bigHead   bool
		serve     func(net.Conn)
		wantArmed bool
		wantCode  int
		wantIdle  int
	}{
		{"answer at once", time.Minute, false, answerEach(ok), false, 200, 1},
		{"no header timeout", 0, false, answerEach(ok), false, 200, 1},
		{"answer after the delay", time.Minute, false, func(c net.Conn) {
			br := bufio.NewReader(c)
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			time.Sleep(2 * upstreamAbortDelay)
			_, _ = io.WriteString(c, ok)
			_, _ = io.Copy(io.Discard, br)
		}, true, 200, 1},
		{"head in two parts", time.Minute, false, answerInTwo("HTTP/1.1 200 OK\r\n", "Content-Length: 2\r\n\r\nok"), true, 200, 1},
		{"body after the head", time.Minute, false, answerInTwo("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n", "ok"), true, 200, 1},
		{"close-delimited body", time.Minute, false, func(c net.Conn) {
			if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nok")
			}
		}, true, 200, 0},
		{"informational first", time.Minute, false, answerEach("HTTP/1.1 103 Early Hints\r\n\r\n" + ok), true, 200, 1},
		{"large request head", time.Minute, true, answerEach(ok), true, 200, 1},
		{"header timeout below the delay", upstreamAbortDelay / 2, false, func(c net.Conn) {
			_, _ = io.Copy(io.Discard, c) // never answers
		}, true, 504, 0},
		{"header timeout above the delay", 2 * upstreamAbortDelay, false, func(c net.Conn) {
			_, _ = io.Copy(io.Discard, c)
		}, true, 504, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var armed atomic.Int64
				count := func() { armed.Add(1) }
				abortArmed.Store(&count)
				defer abortArmed.Store(nil)
				p, _ := pipeProxy(t, tt.timeout, tt.serve)
				if tt.timeout == 0 {
					p.conns.timeout = 0
				}
				r := httptest.NewRequest("GET", "/", nil)
				if tt.bigHead {
					r.Header.Set("X-Big", strings.Repeat("b", smallHead))
				}
				w := &answer{ResponseRecorder: httptest.NewRecorder()}
				p.ServeHTTP(w, r)
				if w.Code != tt.wantCode || tt.wantCode == 200 && w.Body.String() != "ok" {
					t.Errorf("%d %q, want %d", w.Code, w.Body, tt.wantCode)
				}
				if got := armed.Load() > 0; got != tt.wantArmed {
					t.Errorf("abort armed %d times, want armed %v", armed.Load(), tt.wantArmed)
				}
				if n := idleCount(p); n != tt.wantIdle {
					t.Errorf("%d idle connections, want %d", n, tt.wantIdle)
				}
			})
		})
	}
}

// deadlineConn counts the read deadlines set on it.
type deadlineConn struct {
	net.Conn
	n *atomic.Int64
}

func (c deadlineConn) SetReadDeadline(t time.Time) error {
	c.n.Add(1)
	return c.Conn.SetReadDeadline(t)
}

// TestUpstreamConnsDeadlinesPerRequest: answers that arrive at once on a
// reused connection share the read deadline of the wait for them (see
// upstreamAbortDelay) while it is at least half the delay away.
func TestUpstreamConnsDeadlinesPerRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var deadlines atomic.Int64
		p, _ := pipeProxy(t, time.Minute, answerEach("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
		dial := p.conns.dial
		p.conns.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			return deadlineConn{c, &deadlines}, err
		}
		for range 5 {
			mustFetch(t, p, "GET", "/")
		}
		if n := deadlines.Load(); n != 1 {
			t.Errorf("5 answers at once: %d read deadlines, want 1", n)
		}
		time.Sleep(upstreamAbortDelay/2 + time.Millisecond)
		mustFetch(t, p, "GET", "/")
		if n := deadlines.Load(); n != 2 {
			t.Errorf("past half the delay: %d read deadlines, want 2", n)
		}
	})
}

// TestReverseProxyDirectHeaderInPlace: a simple answer's fields go into
// the client's answer header as they are, once each, whether that header
// was empty (parsed into it in place) or already had fields of the
// handlers in front of the proxy (copied then); hop-by-hop fields never.
func TestReverseProxyDirectHeaderInPlace(t *testing.T) {
	const simple = "HTTP/1.1 200 OK\r\nX-Up: a\r\nx-up: b\r\nContent-Length: 2\r\n\r\nhi"
	tests := []struct {
		name, raw string
		before    http.Header // set by a handler in front
		want      http.Header
	}{
		{"simple, empty header", simple, nil,
			http.Header{"X-Up": {"a", "b"}, "Content-Length": {"2"}}},
		{"simple, header with fields", simple, http.Header{"X-Up": {"front"}, "X-Front": {"1"}},
			http.Header{"X-Up": {"front", "a", "b"}, "X-Front": {"1"}, "Content-Length": {"2"}}},
		{"hop-by-hop, empty header", "HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5\r\nUpgrade: h2c\r\nX-Up: a\r\nContent-Length: 2\r\n\r\nhi", nil,
			http.Header{"X-Up": {"a"}, "Content-Length": {"2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := pipeProxy(t, time.Minute, answerEach(tt.raw))
			for i := range 2 { // a new connection, then the same one again
				a := &answer{ResponseRecorder: httptest.NewRecorder()}
				maps.Copy(a.Header(), tt.before.Clone())
				fetchTo(context.Background(), p, "GET", "/", a)
				if a.Code != http.StatusOK || a.Body.String() != "hi" || !reflect.DeepEqual(a.Result().Header, tt.want) {
					t.Fatalf("exchange %d: %d %q %v; want 200 \"hi\" %v", i, a.Code, a.Body, a.Result().Header, tt.want)
				}
			}
		})
	}
}

// TestReverseProxyDirectHeaderInPlaceFailed: an exchange that fails after
// the answer's fields went into the client's header (the client went
// away as the answer arrived) leaves none of them in the error answer.
func TestReverseProxyDirectHeaderInPlaceFailed(t *testing.T) {
	p, _ := pipeProxy(t, time.Minute, answerOnce("HTTP/1.1 200 OK\r\nSet-Cookie: s=1\r\nContent-Length: 2\r\n\r\nhi"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := fetch(ctx, p, "GET", "/")
	if a.Code != http.StatusBadGateway || a.Header().Get("Set-Cookie") != "" {
		t.Fatalf("%d, header %v; want 502 without the upstream's fields", a.Code, a.Header())
	}
}
