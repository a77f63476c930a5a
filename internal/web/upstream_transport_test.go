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
	"net/http/httptrace"
	"net/textproto"
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

// testTransport returns the proxy transport for srv, whose fast-path dials
// are counted.
func testTransport(t testing.TB, srv *httptest.Server, timeout time.Duration) (*upstreamTransport, *atomic.Int64) {
	tr := newProxyTransport(srv.Listener.Addr().String(), timeout)
	var dials atomic.Int64
	dial := tr.dial
	tr.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return dial(ctx, network, addr)
	}
	t.Cleanup(tr.CloseIdleConnections)
	return tr, &dials
}

// pipeTransport returns a transport for "up.test" whose fast path dials
// in-memory pipes, the far end of each served by serve on a goroutine
// that the cleanup waits for; dials counts them.
func pipeTransport(t testing.TB, timeout time.Duration, serve func(net.Conn)) (*upstreamTransport, *atomic.Int64) {
	tr := newProxyTransport("up.test", timeout)
	var dials atomic.Int64
	var wg sync.WaitGroup
	tr.dial = func(context.Context, string, string) (net.Conn, error) {
		dials.Add(1)
		client, server := net.Pipe()
		wg.Go(func() {
			defer server.Close()
			serve(server)
		})
		return client, nil
	}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		wg.Wait()
	})
	return tr, &dials
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

// newUpstreamRequest makes a bodiless request to host.
func newUpstreamRequest(t testing.TB, ctx context.Context, method, host, path string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, "http://"+host+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// fetch round-trips req and reads the whole body.
func fetch(rt http.RoundTripper, req *http.Request) (int, string, error) {
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// mustFetch is fetch of a bodiless request that must succeed.
func mustFetch(t testing.TB, tr *upstreamTransport, method, path string) (int, string) {
	t.Helper()
	status, body, err := fetch(tr, newUpstreamRequest(t, context.Background(), method, tr.host, path))
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return status, body
}

// idleCount is the number of idle fast-path connections.
func idleCount(tr *upstreamTransport) int {
	tr.idle.mu.Lock()
	defer tr.idle.mu.Unlock()
	return len(tr.idle.conns)
}

func TestUpstreamTransportReuse(t *testing.T) {
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
			tr, dials := testTransport(t, srv, time.Minute)
			for i, method := range []string{tt.method, "GET", tt.method} {
				want := tt.wantBody
				if i == 1 {
					want = "hello"
				}
				if _, body := mustFetch(t, tr, method, "/"); body != want {
					t.Errorf("request %d: body %q, want %q", i, body, want)
				}
			}
			if conns.Load() != tt.wantConns || dials.Load() != tt.wantConns || idleCount(tr) != tt.wantIdle {
				t.Errorf("%d connections, %d dials, %d idle; want %d, %d, %d",
					conns.Load(), dials.Load(), idleCount(tr), tt.wantConns, tt.wantConns, tt.wantIdle)
			}
		})
	}
}

func TestUpstreamTransportFallback(t *testing.T) {
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
		tr, dials := testTransport(t, srv, time.Minute)
		var body io.Reader
		if tt.body != "" {
			body = strings.NewReader(tt.body)
		}
		req, err := http.NewRequest(tt.method, srv.URL, body)
		if err != nil {
			t.Fatal(err)
		}
		if tt.upgrade != "" {
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", tt.upgrade)
		}
		status, got, err := fetch(tr, req)
		want := fmt.Sprintf("%s %d", tt.method, len(tt.body))
		if tt.method == "HEAD" {
			want = ""
		}
		if err != nil || status != http.StatusOK || got != want || dials.Load() != tt.wantDials {
			t.Errorf("%s body %q upgrade %q: %d %q %v, %d fast dials; want %q, %d dials",
				tt.method, tt.body, tt.upgrade, status, got, err, dials.Load(), want, tt.wantDials)
		}
	}
}

func TestReverseProxyReusesUpstreamConnections(t *testing.T) {
	up, conns := countedUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Path)
	}))
	h := mustProxy(t, upstreamOptions(t, up))
	if _, ok := h.transport.(*upstreamTransport); !ok {
		t.Fatalf("transport %T, want *upstreamTransport", h.transport)
	}
	tree := NewTree()
	mustMount(t, tree, "/", h)
	addr := serveTree(t, tree)
	for i := range 5 {
		path := "/r" + strconv.Itoa(i)
		if resp, body := rawGet(t, addr, path); resp.StatusCode != http.StatusOK || string(body) != path {
			t.Errorf("GET %s: %d %q", path, resp.StatusCode, body)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("5 sequential GETs used %d upstream connections, want 1", n)
	}
}

func TestUpstreamTransportStaleConnection(t *testing.T) {
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
	tr, dials := testTransport(t, srv, time.Minute)
	mustFetch(t, tr, "GET", "/1")
	srv.Config.SetKeepAlivesEnabled(false) // closes the idle connection
	<-closed
	if status, body := mustFetch(t, tr, "GET", "/2"); status != http.StatusOK || body != "ok" {
		t.Errorf("after the upstream closed the idle connection: %d %q", status, body)
	}
	if dials.Load() != 2 {
		t.Errorf("%d dials, want 2 (the retry's)", dials.Load())
	}
}

func TestUpstreamTransportNoRetry(t *testing.T) {
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
			tr, dials := pipeTransport(t, time.Minute, tt.serve)
			wantDials := int64(1)
			if strings.HasPrefix(tt.name, "reused") {
				mustFetch(t, tr, "GET", "/")
			}
			_, _, err := fetch(tr, newUpstreamRequest(t, context.Background(), "GET", tr.host, "/"))
			if err == nil || dials.Load() != wantDials {
				t.Errorf("err %v, %d dials; want an error and %d dial", err, dials.Load(), wantDials)
			}
		})
	}
}

func TestUpstreamTransportHeaderTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, _ := pipeTransport(t, time.Second, func(c net.Conn) {
			_, _ = io.Copy(io.Discard, c) // never answers
		})
		req := newUpstreamRequest(t, context.Background(), "GET", tr.host, "/")
		_, err := tr.RoundTrip(req)
		var netErr net.Error
		if !errors.As(err, &netErr) || !netErr.Timeout() {
			t.Fatalf("err %v, want a timeout", err)
		}
		if _, status, _ := classifyUpstreamError(req, err); status != http.StatusGatewayTimeout {
			t.Errorf("classified %d, want 504", status)
		}
		if n := idleCount(tr); n != 0 {
			t.Errorf("%d idle connections after a timeout, want 0", n)
		}
	})
}

func TestUpstreamTransportSlowBodyAfterHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, _ := pipeTransport(t, time.Second, func(c net.Conn) {
			br := bufio.NewReader(c)
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
			time.Sleep(5 * time.Second) // longer than the header timeout
			_, _ = io.WriteString(c, "hello")
			_, _ = io.Copy(io.Discard, br)
		})
		if _, body := mustFetch(t, tr, "GET", "/"); body != "hello" {
			t.Errorf("body %q", body)
		}
		if n := idleCount(tr); n != 1 {
			t.Errorf("%d idle connections, want 1", n)
		}
	})
}

func TestUpstreamTransportIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ended atomic.Int64
		tr, dials := pipeTransport(t, time.Second, func(c net.Conn) {
			answerEach("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")(c)
			ended.Add(1)
		})
		mustFetch(t, tr, "GET", "/")
		time.Sleep(upstreamIdleTimeout - time.Second)
		synctest.Wait()
		if ended.Load() != 0 || idleCount(tr) != 1 {
			t.Fatalf("before the idle timeout: %d closed, %d idle", ended.Load(), idleCount(tr))
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if ended.Load() != 1 || idleCount(tr) != 0 {
			t.Errorf("after the idle timeout: %d closed, %d idle; want 1, 0", ended.Load(), idleCount(tr))
		}
		mustFetch(t, tr, "GET", "/")
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

func TestUpstreamTransportClientCancel(t *testing.T) {
	tests := []struct {
		name       string
		duringBody bool // the upstream sends headers and "part", which is read first
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
			tr, _ := testTransport(t, srv, time.Minute)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := startCancelable(t, tr, newUpstreamRequest(t, ctx, "GET", tr.host, "/slow"), tt.duringBody)
			<-arrived
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("err %v, want context.Canceled", err)
			}
			<-aborted
			mustFetch(t, tr, "GET", "/next")
			if n := conns.Load(); n != 2 {
				t.Errorf("%d upstream connections, want 2 (the aborted one not reused)", n)
			}
		})
	}
}

// startCancelable starts the exchange of req, and reports on the channel
// how it ended: RoundTrip's error, or with duringBody, that of reading
// the body after its first 4 bytes ("part") arrived.
func startCancelable(t *testing.T, tr *upstreamTransport, req *http.Request, duringBody bool) <-chan error {
	errc := make(chan error, 1)
	if !duringBody {
		go func() {
			_, err := tr.RoundTrip(req)
			errc <- err
		}()
		return errc
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	part := make([]byte, 4)
	if _, err := io.ReadFull(resp.Body, part); err != nil || string(part) != "part" {
		t.Fatalf("first bytes %q, %v", part, err)
	}
	go func() {
		defer resp.Body.Close()
		_, err := io.ReadAll(resp.Body)
		errc <- err
	}()
	return errc
}

func TestUpstreamTransportEarlyClose(t *testing.T) {
	tr, dials := pipeTransport(t, time.Minute, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			// Two writes: the headers arrive alone, nothing is left buffered.
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
			if _, err := c.Write(make([]byte, 100000)); err != nil {
				return
			}
		}
	})
	resp, err := tr.RoundTrip(newUpstreamRequest(t, context.Background(), "GET", tr.host, "/"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // idempotent, and without reading the rest
		if err := resp.Body.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	if n, err := resp.Body.Read(make([]byte, 1)); n != 0 || !errors.Is(err, http.ErrBodyReadAfterClose) {
		t.Errorf("Read after Close: %d, %v", n, err)
	}
	if n := idleCount(tr); n != 0 {
		t.Fatalf("%d idle connections after an early close, want 0", n)
	}
	if _, body := mustFetch(t, tr, "GET", "/"); len(body) != 100000 {
		t.Errorf("next body: %d bytes", len(body))
	}
	if n := idleCount(tr); n != 1 || dials.Load() != 2 {
		t.Errorf("%d idle connections, %d dials; want 1, 2", n, dials.Load())
	}
}

func TestUpstreamTransportInformational(t *testing.T) {
	tr, _ := pipeTransport(t, time.Minute, answerEach("HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n"+
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	var got []string
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
		got = append(got, strconv.Itoa(code)+" "+h.Get("Link"))
		return nil
	}}
	ctx := httptrace.WithClientTrace(context.Background(), trace)
	for range 2 {
		status, body, err := fetch(tr, newUpstreamRequest(t, ctx, "GET", tr.host, "/"))
		if err != nil || status != http.StatusOK || body != "ok" {
			t.Fatalf("%d %q %v, want 200 ok", status, body, err)
		}
	}
	if want := []string{"103 </s.css>", "100 ", "103 </s.css>", "100 "}; !slices.Equal(got, want) {
		t.Errorf("1xx seen %q, want %q", got, want)
	}
	if n := idleCount(tr); n != 1 {
		t.Errorf("%d idle connections, want 1", n)
	}
}

func TestUpstreamTransportBadResponses(t *testing.T) {
	tests := []struct {
		name     string
		method   string
		raw      string
		wantErr  string // "" for a successful exchange
		wantIdle int
	}{
		{"status below 100", "GET", "HTTP/1.1 099 Odd\r\nContent-Length: 0\r\n\r\n", "bad upstream status", 0},
		{"unrequested switch", "GET", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", "switched protocols", 0},
		{"garbage", "GET", "hello\r\n\r\n", "malformed HTTP", 0},
		{"headers too large", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: " + strings.Repeat("a", 200) + "\r\n\r\n", "exceed the limit", 0},
		{"endless 1xx", "GET", strings.Repeat("HTTP/1.1 103 Early Hints\r\n\r\n", upstreamMax1xx+1), "informational", 0},
		{"truncated body", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", "unexpected EOF", 0},
		{"body after HEAD", "HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", "", 0},
		{"well formed", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", "", 1},
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
			tr, _ := pipeTransport(t, time.Minute, serve)
			tr.maxHdr = 128
			_, _, err := fetch(tr, newUpstreamRequest(t, context.Background(), tt.method, tr.host, "/"))
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err %v, want %q", err, tt.wantErr)
			}
			if n := idleCount(tr); n != tt.wantIdle {
				t.Errorf("%d idle connections, want %d", n, tt.wantIdle)
			}
		})
	}
}

func TestUpstreamTransportRequestWire(t *testing.T) {
	lines := make(chan string, 1)
	tr, _ := pipeTransport(t, time.Minute, func(c net.Conn) {
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
		lines <- head.String()
		_, _ = io.WriteString(c, "HTTP/1.1 204 No Content\r\n\r\n")
		_, _ = io.Copy(io.Discard, br)
	})
	req := newUpstreamRequest(t, context.Background(), "GET", tr.host, "/a%2Fb?q=1")
	req.Header.Set("User-Agent", "") // as httputil sets it: no Go default
	req.Header.Set("X-Forwarded-For", "10.0.0.1")
	if _, _, err := fetch(tr, req); err != nil {
		t.Fatal(err)
	}
	want := "GET /a%2Fb?q=1 HTTP/1.1\r\nHost: up.test\r\nX-Forwarded-For: 10.0.0.1\r\n\r\n"
	if got := <-lines; got != want {
		t.Errorf("upstream got %q, want %q", got, want)
	}
}

func TestUpstreamTransportConcurrent(t *testing.T) {
	srv, _ := countedUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Path)
	}))
	tr, _ := testTransport(t, srv, time.Minute)
	const workers, each = 50, 100
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				path := fmt.Sprintf("/%d/%d", w, i)
				req, err := http.NewRequest("GET", "http://"+tr.host+path, nil)
				if err != nil {
					errs <- err
					return
				}
				status, body, err := fetch(tr, req)
				if err != nil || status != http.StatusOK || body != path {
					errs <- fmt.Errorf("GET %s: %d %q %v", path, status, body, err)
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
	if n := idleCount(tr); n < 1 || n > workers {
		t.Errorf("%d idle connections, want 1..%d", n, workers)
	}
}

// FuzzUpstreamResponse feeds arbitrary upstream bytes to the fast path:
// an error or a response, never a panic or a hang.
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
		tr, _ := pipeTransport(t, time.Minute, func(c net.Conn) {
			if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
				_, _ = io.WriteString(c, raw)
			}
		})
		_, _, _ = fetch(tr, newUpstreamRequest(t, context.Background(), "GET", tr.host, "/"))
	})
}

func TestUpstreamTransportTrailer(t *testing.T) {
	tr, _ := pipeTransport(t, time.Minute, answerEach("HTTP/1.1 200 OK\r\nTrailer: X-T\r\nTransfer-Encoding: chunked\r\n\r\n"+
		"2\r\nok\r\n0\r\nX-T: 1\r\n\r\n"))
	resp, err := tr.RoundTrip(newUpstreamRequest(t, context.Background(), "GET", tr.host, "/"))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(body) != "ok" || resp.Trailer.Get("X-T") != "1" {
		t.Errorf("body %q, trailer %v, err %v", body, resp.Trailer, err)
	}
	if n := idleCount(tr); n != 1 {
		t.Errorf("%d idle connections, want 1", n)
	}
}
