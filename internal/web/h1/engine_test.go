package h1

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serveEngine serves s on a loopback listener until the test ends (then
// Shutdown, which must leave no connection behind).
func serveEngine(t *testing.T, s *Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			_ = s.Close()
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return l.Addr().String()
}

func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

func get(t *testing.T, c net.Conn, br *bufio.Reader, path string) (*http.Response, string) {
	t.Helper()
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: a\r\n\r\n", path); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// waitClosed reads until the server closes the connection.
func waitClosed(t *testing.T, br *bufio.Reader) {
	t.Helper()
	if b, err := io.ReadAll(br); err != nil && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("read %q, then %v; want the server to close", b, err)
	}
}

func TestOversizedHead(t *testing.T) {
	s := startBoth(t, http.HandlerFunc(echo))
	for _, n := range []int{http.DefaultMaxHeaderBytes - 1000, http.DefaultMaxHeaderBytes + 8192} {
		raw := []byte("GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("b", n) + "\r\n\r\n")
		std, eng := exchange(t, s.std, raw), exchange(t, s.eng, raw)
		if strings.Join(std, "\n") != strings.Join(eng, "\n") {
			t.Errorf("head of %d bytes: net/http %q, engine %q", n, std, eng)
		}
		if n > http.DefaultMaxHeaderBytes && !strings.Contains(eng[0], " 431 ") {
			t.Errorf("head of %d bytes: %q, want 431", n, eng[0])
		}
	}
}

func TestKeepAliveAndClose(t *testing.T) {
	addr := serveEngine(t, &Server{Handler: http.HandlerFunc(behave)})
	c, br := dial(t, addr)
	for i := range 3 {
		resp, body := get(t, c, br, "/small")
		if resp.StatusCode != 200 || body != "<html>hi</html>" || resp.Close {
			t.Fatalf("request %d: %d %q close=%v", i, resp.StatusCode, body, resp.Close)
		}
	}
	resp, _ := get(t, c, br, "/close")
	if !resp.Close {
		t.Error("Connection: close from the handler: the answer does not say close")
	}
	waitClosed(t, br)
}

func TestIdleTimeout(t *testing.T) {
	addr := serveEngine(t, &Server{Handler: http.HandlerFunc(behave), IdleTimeout: 50 * time.Millisecond})
	c, br := dial(t, addr)
	get(t, c, br, "/small")
	waitClosed(t, br) // within the dial's 10 s deadline
}

func TestReadHeaderTimeout(t *testing.T) {
	addr := serveEngine(t, &Server{Handler: http.HandlerFunc(behave), ReadHeaderTimeout: 50 * time.Millisecond})
	c, br := dial(t, addr)
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\n"); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, br)
}

func TestShutdownWaitsForInFlight(t *testing.T) {
	started, release, idleSeen := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var states sync.Map
	s := &Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				close(started)
				<-release
			}
			_, _ = io.WriteString(w, "done")
		}),
		ConnState: func(c net.Conn, st http.ConnState) {
			if _, seen := states.LoadOrStore(st, true); !seen && st == http.StateIdle {
				close(idleSeen)
			}
		},
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	c, br := dial(t, l.Addr().String())
	idle, ibr := dial(t, l.Addr().String())
	got := make(chan string, 1)
	go func() {
		_, _ = io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		got <- string(b)
	}()
	<-started
	get(t, idle, ibr, "/") // a second connection, left idle
	<-idleSeen
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	waitClosed(t, ibr) // the idle connection is closed at once
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v with a request in flight", err)
	default:
	}
	close(release)
	if b := <-got; b != "done" {
		t.Errorf("in-flight answer %q", b)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
	for _, st := range []http.ConnState{http.StateNew, http.StateActive, http.StateIdle, http.StateClosed} {
		if _, ok := states.Load(st); !ok {
			t.Errorf("ConnState never reported %v", st)
		}
	}
}

func TestShutdownDeadline(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	})}
	addr := serveEngine(t, s)
	c, _ := dial(t, addr)
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown with an ended context: %v", err)
	}
	close(release)
}

func TestHandlerPanic(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	s := &Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/abort" {
				panic(http.ErrAbortHandler)
			}
			panic("boom")
		}),
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil)),
	}
	addr := serveEngine(t, s)
	for _, path := range []string{"/boom", "/abort"} {
		c, br := dial(t, addr)
		_, _ = fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: a\r\n\r\n", path)
		waitClosed(t, br)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logs.String(), "panic serving request"); n != 1 || !strings.Contains(logs.String(), "boom") {
		t.Errorf("log %q: want one panic logged (boom), ErrAbortHandler silent", logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// flakyListener fails its first accepts with EMFILE, as a process out of
// descriptors does.
type flakyListener struct {
	net.Listener
	mu    sync.Mutex
	fails int
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.fails > 0 {
		l.fails--
		l.mu.Unlock()
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	l.mu.Unlock()
	return l.Listener.Accept()
}

func TestAcceptEMFILE(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	s := &Server{Handler: http.HandlerFunc(behave), Logger: slog.New(slog.NewJSONHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	fl := &flakyListener{Listener: l, fails: 4}
	done := make(chan error, 1)
	go func() { done <- s.Serve(fl) }()
	c, br := dial(t, l.Addr().String())
	if resp, body := get(t, c, br, "/small"); resp.StatusCode != 200 || body != "<html>hi</html>" {
		t.Errorf("after EMFILE: %d %q", resp.StatusCode, body)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
	// At debug level, as net/http's: the web transport warns itself.
	if log := logged.String(); !strings.Contains(log, `"level":"DEBUG","msg":"http: accept error; retrying"`) || strings.Contains(log, `"level":"WARN"`) {
		t.Errorf("accept errors logged as\n%s\nwant one debug line", log)
	}
}

// TestDisconnectCancels: a client that goes away while its handler runs
// cancels the request's context, with a body read first or none.
func TestDisconnectCancels(t *testing.T) {
	for _, raw := range []string{
		"GET /wait HTTP/1.1\r\nHost: a\r\n\r\n",
		"POST /wait HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc",
		"POST /wait HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
	} {
		started, cancelled := make(chan struct{}), make(chan error, 1)
		s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			close(started)
			<-r.Context().Done()
			cancelled <- r.Context().Err()
		})}
		addr := serveEngine(t, s)
		c, _ := dial(t, addr)
		_, _ = io.WriteString(c, raw)
		<-started
		_ = c.Close()
		if err := <-cancelled; !errors.Is(err, context.Canceled) {
			t.Errorf("%q: context ended with %v", raw, err)
		}
	}
}

// TestWatchKeepsPipelinedByte: the watch's read takes the first byte of
// a pipelined request; that request is still served, and the running
// one is not cancelled.
func TestWatchKeepsPipelinedByte(t *testing.T) {
	watching := make(chan struct{}, 1)
	f := func() {
		select {
		case watching <- struct{}{}:
		default:
		}
	}
	watchStarted.Store(&f)
	defer watchStarted.Store(nil)
	release := make(chan struct{})
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
			if err := r.Context().Err(); err != nil {
				t.Errorf("slow request cancelled: %v", err)
			}
		}
		_, _ = io.WriteString(w, r.URL.Path)
	})}
	addr := serveEngine(t, s)
	c, br := dial(t, addr)
	_, _ = io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
	<-watching
	_, _ = io.WriteString(c, "GET /next HTTP/1.1\r\nHost: a\r\n\r\n")
	close(release)
	for _, want := range []string{"/slow", "/next"} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := io.ReadAll(resp.Body); string(b) != want {
			t.Errorf("got %q, want %q", b, want)
		}
	}
}

// TestWatchDelayPerRequest: the watch timer outlives a quick request
// and fires while a later request's handler runs; that handler is
// watched WatchDelay after it began, not when the timer set for the
// earlier request fires.
func TestWatchDelayPerRequest(t *testing.T) {
	watching := make(chan time.Time, 1)
	f := func() {
		select {
		case watching <- time.Now():
		default:
		}
	}
	watchStarted.Store(&f)
	defer watchStarted.Store(nil)
	began, release := make(chan time.Time, 1), make(chan struct{})
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			began <- time.Now()
			<-release
		}
		_, _ = io.WriteString(w, r.URL.Path)
	})}
	addr := serveEngine(t, s)
	c, br := dial(t, addr)
	get(t, c, br, "/quick") // sets the timer, which stays set
	// The scenario, not a synchronisation: the slow request begins
	// well within the delay of the quick one's timer.
	<-time.After(WatchDelay / 2)
	_, _ = io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
	start := <-began
	watched := <-watching
	close(release)
	// The handler began a little after the engine's begin: a margin.
	if d := watched.Sub(start); d < WatchDelay-WatchDelay/10 {
		t.Errorf("watched %v after the handler began, want %v", d, WatchDelay)
	}
	if resp, err := http.ReadResponse(br, nil); err != nil {
		t.Fatal(err)
	} else if b, _ := io.ReadAll(resp.Body); string(b) != "/slow" {
		t.Errorf("got %q", b)
	}
}

func TestHijackWithBufferedBytes(t *testing.T) {
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		line, err := rw.ReadString('\n')
		if err != nil {
			t.Error(err)
			return
		}
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\n\r\necho " + line)
		_ = rw.Flush()
	})}
	addr := serveEngine(t, s)
	c, br := dial(t, addr)
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\nhello\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rest, _ := br.ReadString('\n'); resp.StatusCode != 101 || rest != "echo hello\n" {
		t.Errorf("%d, then %q", resp.StatusCode, rest)
	}
}

// TestShutdownLeavesHijacked: a handler that runs on with its hijacked
// connection (a relayed WebSocket) does not hold Shutdown.
func TestShutdownLeavesHijacked(t *testing.T) {
	hijacked, release := make(chan struct{}), make(chan struct{})
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		close(hijacked)
		<-release
	})}
	addr := serveEngine(t, s)
	c, _ := dial(t, addr)
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	<-hijacked
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown with a hijacked connection: %v", err)
	}
}

func TestFlushStreams(t *testing.T) {
	next := make(chan struct{})
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		for i := range 3 {
			fmt.Fprintf(w, "part %d\n", i)
			if err := rc.Flush(); err != nil {
				t.Error(err)
			}
			<-next
		}
	})}
	addr := serveEngine(t, s)
	c, br := dial(t, addr)
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.TransferEncoding) != 1 {
		t.Errorf("a flushed answer: Transfer-Encoding %v, want chunked", resp.TransferEncoding)
	}
	body := bufio.NewReader(resp.Body)
	for i := range 3 {
		line, err := body.ReadString('\n') // arrives before the handler goes on
		if want := fmt.Sprintf("part %d\n", i); line != want || err != nil {
			t.Fatalf("%q, %v; want %q", line, err, want)
		}
		next <- struct{}{}
	}
}

func TestResponseControllerDeadlines(t *testing.T) {
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		for _, err := range []error{rc.SetReadDeadline(time.Now().Add(time.Second)), rc.SetWriteDeadline(time.Time{}), rc.EnableFullDuplex()} {
			if err != nil {
				t.Error(err)
			}
		}
		b, _ := io.ReadAll(r.Body)
		_, _ = w.Write(b)
	})}
	addr := serveEngine(t, s)
	c, br := dial(t, addr)
	_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != "ok" {
		t.Errorf("body %q", b)
	}
}

func TestRequestFields(t *testing.T) {
	type ctxKey struct{}
	s := &Server{
		ConnContext: func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, ctxKey{}, "conn") },
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			la, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
			fmt.Fprintf(w, "%v %v %v %v", r.Context().Value(ctxKey{}), la != nil, r.RemoteAddr != "", r.TLS == nil)
		}),
	}
	addr := serveEngine(t, s)
	c, br := dial(t, addr)
	if _, body := get(t, c, br, "/"); body != "conn true true true" {
		t.Errorf("got %q", body)
	}
}

// TestHeaderPerRequest: the header map of a finished answer serves the
// next answer on the connection, empty: nothing of one answer's header
// reaches the next, nor a header of over maxReusedHeader fields.
func TestHeaderPerRequest(t *testing.T) {
	var seen []int // the header's length as each handler begins
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, len(w.Header()))
		n := 1
		if r.URL.Path == "/many" {
			n = maxReusedHeader + 1
		}
		for i := range n {
			w.Header().Set(fmt.Sprintf("X-%s-%d", strings.Trim(r.URL.Path, "/"), i), "v")
		}
		_, _ = io.WriteString(w, "ok")
	})}
	c, br := dial(t, serveEngine(t, s))
	for _, path := range []string{"/a", "/b", "/many", "/c"} {
		resp, body := get(t, c, br, path)
		want := http.CanonicalHeaderKey(fmt.Sprintf("X-%s-0", path[1:]))
		if body != "ok" || resp.Header.Get(want) != "v" {
			t.Fatalf("%s: %q, header %v; want ok and %s", path, body, resp.Header, want)
		}
		for k := range resp.Header {
			if strings.HasPrefix(k, "X-") && !strings.HasPrefix(k, want[:len(want)-1]) {
				t.Errorf("%s: answer has %s, of another request", path, k)
			}
		}
	}
	if fmt.Sprint(seen) != "[0 0 0 0]" {
		t.Errorf("header lengths as the handlers began: %v, want all 0", seen)
	}
}
