package web

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// loopFront is a server on the loop engine whose tree mounts a counted
// reverse proxy at "proxy" (and a JSON document at "other").
type loopFront struct {
	addr   string
	srv    *Server
	proxy  *ReverseProxy
	inLoop atomic.Int64 // requests the loops served
	done   chan error
}

func newLoopFront(t *testing.T, po ReverseProxyOptions, so ServerOptions) *loopFront {
	t.Helper()
	f := &loopFront{done: make(chan error, 1)}
	f.proxy = mustProxy(t, po)
	tree := NewTree()
	mustMount(t, tree, "proxy", MeteredProxy(f.proxy, func(int, time.Duration) { f.inLoop.Add(1) }, f.proxy))
	other, err := JSON(map[string]int{"a": 1}, JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustMount(t, tree, "other", other)
	so.Handler, so.Engine = tree, EngineLoop
	if f.srv, err = NewServer(so); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = l.Addr().String()
	go func() { f.done <- f.srv.Serve(l) }()
	t.Cleanup(func() { f.shutdown(t) })
	return f
}

// shutdown shuts the server down, once.
func (f *loopFront) shutdown(t *testing.T) {
	if f.done == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.srv.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-f.done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	f.done = nil
}

// dial opens a client connection to f.
func (f *loopFront) dial(t *testing.T) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", f.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

// readReply reads the final answer to method from br, and its body.
func readReply(t *testing.T, br *bufio.Reader, method string) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	for err == nil && resp.StatusCode < 200 { // informational: the final answer follows
		resp, err = http.ReadResponse(br, &http.Request{Method: method})
	}
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return resp, string(b)
}

// TestLoopHandOff: requests the loop does not serve go to h1, with their
// connection, for good: bodies, chunked bodies, Expect, HTTP/1.0, a
// request h1 refuses, a dot segment the proxy refuses, a path no proxy
// serves; a keep-alive connection that mixes them, and pipelined
// requests, get every answer in order.
func TestLoopHandOff(t *testing.T) {
	up := echoUpstream(t)
	const host = "Host: front.test\r\n"
	tests := []struct {
		name     string
		requests []string // sent one after the other on one connection
		pipeline bool     // all at once
		want     []int    // the statuses
		inLoop   int64
		bodyLen  []int64 // what the upstream saw of each body, -1 not checked
	}{
		{name: "post", requests: []string{"POST /proxy/a HTTP/1.1\r\n" + host + "Content-Length: 5\r\n\r\nhello"},
			want: []int{200}, bodyLen: []int64{5}},
		{name: "chunked body", requests: []string{"POST /proxy/a HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"},
			want: []int{200}, bodyLen: []int64{3}},
		{name: "expect", requests: []string{"PUT /proxy/a HTTP/1.1\r\n" + host + "Expect: 100-continue\r\nContent-Length: 2\r\n\r\nhi"},
			want: []int{200}, bodyLen: []int64{2}},
		{name: "http/1.0", requests: []string{"GET /proxy/a HTTP/1.0\r\n" + host + "\r\n"}, want: []int{200}},
		{name: "bad request", requests: []string{"GET /proxy/a HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"}, want: []int{400}},
		{name: "dot segment", requests: []string{"GET /proxy/a/%2e%2e/b HTTP/1.1\r\n" + host + "\r\n"}, want: []int{400}},
		{name: "content-length 0", requests: []string{"GET /proxy/a HTTP/1.1\r\n" + host + "Content-Length: 0\r\n\r\n"}, want: []int{200}},
		{name: "mixed keep-alive", requests: []string{
			"GET /proxy/1 HTTP/1.1\r\n" + host + "\r\n",
			"GET /proxy/2 HTTP/1.1\r\n" + host + "\r\n",
			"GET /other HTTP/1.1\r\n" + host + "\r\n",
			"GET /proxy/3 HTTP/1.1\r\n" + host + "\r\n",
			"GET /missing HTTP/1.1\r\n" + host + "\r\n",
		}, want: []int{200, 200, 200, 200, 404}, inLoop: 2},
		{name: "pipelined", pipeline: true, requests: []string{
			"GET /proxy/1 HTTP/1.1\r\n" + host + "\r\n",
			"HEAD /proxy/2 HTTP/1.1\r\n" + host + "\r\n",
			"GET /proxy/3 HTTP/1.1\r\n" + host + "\r\n",
			"POST /proxy/4 HTTP/1.1\r\n" + host + "Content-Length: 3\r\n\r\nabc",
			"GET /proxy/5 HTTP/1.1\r\n" + host + "\r\n",
		}, want: []int{200, 200, 200, 200, 200}, inLoop: 3, bodyLen: []int64{-1, -1, -1, 3, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newLoopFront(t, upstreamOptions(t, up), ServerOptions{})
			c, br := f.dial(t)
			if tt.pipeline {
				if _, err := io.WriteString(c, strings.Join(tt.requests, "")); err != nil {
					t.Fatal(err)
				}
			}
			for i, raw := range tt.requests {
				if !tt.pipeline {
					if _, err := io.WriteString(c, raw); err != nil {
						t.Fatal(err)
					}
				}
				method, _, _ := strings.Cut(raw, " ")
				resp, body := readReply(t, br, method)
				if resp.StatusCode != tt.want[i] {
					t.Errorf("request %d: %d %q, want %d", i, resp.StatusCode, body, tt.want[i])
				}
				if tt.bodyLen != nil && tt.bodyLen[i] >= 0 && !strings.Contains(body, fmt.Sprintf(`"BodyLen":%d`, tt.bodyLen[i])) {
					t.Errorf("request %d: the upstream saw %s, want a body of %d bytes", i, body, tt.bodyLen[i])
				}
			}
			_ = c.Close()
			f.shutdown(t)
			if n := f.inLoop.Load(); n != tt.inLoop {
				t.Errorf("the loop served %d requests, want %d", n, tt.inLoop)
			}
		})
	}
}

// TestLoopTimeouts: a head not whole within the read header timeout, and
// a connection idle past the idle timeout, are closed without a word, as
// h1 closes them.
func TestLoopTimeouts(t *testing.T) {
	up := echoUpstream(t)
	f := newLoopFront(t, upstreamOptions(t, up), ServerOptions{ReadHeaderTimeout: 200 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
	t.Run("head", func(t *testing.T) {
		c, br := f.dial(t)
		if _, err := io.WriteString(c, "GET /proxy/a HTTP/1.1\r\nHo"); err != nil {
			t.Fatal(err)
		}
		if b, err := io.ReadAll(br); err != nil || len(b) > 0 {
			t.Fatalf("read %q, %v; want the end of the connection", b, err)
		}
	})
	t.Run("idle", func(t *testing.T) {
		c, br := f.dial(t)
		if _, err := io.WriteString(c, "GET /proxy/a HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		if resp, _ := readReply(t, br, http.MethodGet); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if b, err := io.ReadAll(br); err != nil || len(b) > 0 {
			t.Fatalf("read %q, %v; want the end of the connection", b, err)
		}
	})
}

// TestLoopClientGone: a client that goes away while its request waits
// for the upstream has the upstream connection closed.
func TestLoopClientGone(t *testing.T) {
	up := newScriptedUpstream(t, "", false, true)
	f := newLoopFront(t, ReverseProxyOptions{Host: "127.0.0.1", Port: up.port()}, ServerOptions{})
	c, _ := f.dial(t)
	if _, err := io.WriteString(c, "GET /proxy/a HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	waitToken(t, up.got, "the upstream's request")
	_ = c.Close()
	waitToken(t, up.ended, "the upstream connection's end")
}

// TestLoopUpstreamGone: an idle pooled connection that the upstream
// closes is dropped, and the next request gets a new one; the proxy's
// Shutdown closes the loops' idle connections.
func TestLoopUpstreamGone(t *testing.T) {
	up := newScriptedUpstream(t, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok", true, false)
	f := newLoopFront(t, ReverseProxyOptions{Host: "127.0.0.1", Port: up.port()}, ServerOptions{})
	c, br := f.dial(t)
	for i := range 3 {
		if _, err := io.WriteString(c, "GET /proxy/a HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		if resp, body := readReply(t, br, http.MethodGet); resp.StatusCode != http.StatusOK || body != "ok" {
			t.Fatalf("request %d: %d %q", i, resp.StatusCode, body)
		}
		waitToken(t, up.ended, "the upstream's close")
	}
	f.shutdown(t) // the loop counts an exchange after its answer went out: its end is ordered before the count's read
	if n := f.inLoop.Load(); n != 3 {
		t.Errorf("the loop served %d requests, want 3", n)
	}

	kept := newScriptedUpstream(t, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok", false, false)
	g := newLoopFront(t, ReverseProxyOptions{Host: "127.0.0.1", Port: kept.port()}, ServerOptions{})
	c, br = g.dial(t)
	if _, err := io.WriteString(c, "GET /proxy/a HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	readReply(t, br, http.MethodGet)
	if err := g.proxy.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitToken(t, kept.ended, "the idle upstream connection's close")
}

// TestLoopShutdown: Shutdown closes an idle connection at once, lets an
// exchange under way finish (its answer says "Connection: close"), then
// returns; no descriptor is left open.
func TestLoopShutdown(t *testing.T) {
	fds := openFDs(t)
	func() {
		seen, answer := make(chan struct{}, 1), make(chan struct{})
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				seen <- struct{}{}
				<-answer
			}
			_, _ = io.WriteString(w, r.URL.Path)
		}))
		defer up.Close()
		f := newLoopFront(t, upstreamOptions(t, up), ServerOptions{})
		idle, idleBR := f.dial(t)
		defer idle.Close()
		if _, err := io.WriteString(idle, "GET /proxy/a HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		readReply(t, idleBR, http.MethodGet)
		busy, busyBR := f.dial(t)
		defer busy.Close()
		if _, err := io.WriteString(busy, "GET /proxy/slow HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		waitToken(t, seen, "the slow request at the upstream")
		stopped := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			stopped <- f.srv.Shutdown(ctx)
		}()
		if b, err := io.ReadAll(idleBR); err != nil || len(b) > 0 {
			t.Fatalf("idle connection: read %q, %v; want its end", b, err)
		}
		close(answer)
		resp, body := readReply(t, busyBR, http.MethodGet)
		if resp.StatusCode != http.StatusOK || body != "/slow" || !resp.Close {
			t.Errorf("the request under way: %d %q close %v; want 200 /slow, closed", resp.StatusCode, body, resp.Close)
		}
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
		if err := <-f.done; err != nil {
			t.Fatal(err)
		}
		f.done = nil
		_ = f.proxy.Shutdown(context.Background())
		up.CloseClientConnections()
	}()
	if got := openFDs(t); got > fds {
		t.Errorf("%d descriptors open, %d before", got, fds)
	}
}

// TestLoopLargeBodies: large answers, with a length and chunked, reach a
// client that reads them slowly whole and unchanged (the loop stops
// reading the upstream while the client's output is full).
func TestLoopLargeBodies(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 1<<20) // 16 MiB
	sum := sha256.Sum256(body)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		if r.URL.Path == "/length" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		for b := body; len(b) > 0; b = b[min(len(b), 100000):] {
			_, _ = w.Write(b[:min(len(b), 100000)])
		}
	}))
	t.Cleanup(up.Close)
	f := newLoopFront(t, upstreamOptions(t, up), ServerOptions{})
	for _, path := range []string{"/length", "/chunked"} {
		c, br := f.dial(t)
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.WriteString(c, "GET /proxy"+path+" HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, got := readReply(t, br, http.MethodGet)
		if resp.StatusCode != http.StatusOK || sha256.Sum256([]byte(got)) != sum {
			t.Errorf("%s: %d, %d bytes; want 200 and the body", path, resp.StatusCode, len(got))
		}
	}
	f.shutdown(t) // as in TestLoopUpstreamGone
	if n := f.inLoop.Load(); n != 2 {
		t.Errorf("the loop served %d requests, want 2", n)
	}
}

// waitToken waits for a token on ch, for at most 10 s.
func waitToken(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s", what)
	}
}

// openFDs is the number of the process's open descriptors.
func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}
