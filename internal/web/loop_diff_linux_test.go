package web

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/logtest"
)

// The loop engine against h1 (the direct path): the same requests through
// each to the same scripted upstream, and the same request at the
// upstream, the same answer at the client, the same log lines.

// scriptedUpstream answers every request on its connections with answer,
// raw, and records the heads it read.
type scriptedUpstream struct {
	l          net.Listener
	answer     string
	closeAfter bool // close the connection after each answer
	hang       bool // answer nothing

	mu    sync.Mutex
	seen  []*http.Request
	wg    sync.WaitGroup
	got   chan struct{} // a token per request read
	ended chan struct{} // a token per connection ended
}

func newScriptedUpstream(t *testing.T, answer string, closeAfter, hang bool) *scriptedUpstream {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &scriptedUpstream{l: l, answer: answer, closeAfter: closeAfter, hang: hang,
		got: make(chan struct{}, 100), ended: make(chan struct{}, 100)}
	u.wg.Add(1)
	go u.accept()
	t.Cleanup(func() {
		_ = l.Close()
		u.wg.Wait()
	})
	return u
}

func (u *scriptedUpstream) accept() {
	defer u.wg.Done()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for {
		c, err := u.l.Accept()
		if err != nil {
			return
		}
		conns = append(conns, c)
		u.wg.Add(1)
		go u.serve(c)
	}
}

func (u *scriptedUpstream) serve(c net.Conn) {
	defer u.wg.Done()
	defer func() { u.ended <- struct{}{} }()
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		u.mu.Lock()
		u.seen = append(u.seen, req)
		u.mu.Unlock()
		u.got <- struct{}{}
		if u.hang {
			_, _ = io.Copy(io.Discard, br)
			return
		}
		if _, err := io.WriteString(c, u.answer); err != nil || u.closeAfter {
			return
		}
	}
}

func (u *scriptedUpstream) port() int { return u.l.Addr().(*net.TCPAddr).Port }

// outcome is what a request through a front gave: what the upstream saw,
// what the client got, what the proxy logged.
type outcome struct {
	Method, URI, Host string
	SeenHeader        http.Header
	Status            int
	Header            http.Header
	ContentLength     int64
	TransferEncoding  []string
	Body              string
	Trailer           http.Header
	Failed            bool // the answer could not be read whole
	Logs              []string
	ServedInLoop      int64
}

// diffCase is one request and the upstream's script.
type diffCase struct {
	name       string
	request    string // raw, its blank line included
	answer     string
	closeAfter bool
	hang       bool
	refused    bool          // the upstream is not listening
	timeout    time.Duration // the proxy's; 0: the default
	// cutShort: the answer breaks off. h1 holds the first 2 KiB of a body
	// before it writes the head, the loop relays at once: the client
	// gets nothing from h1, the head and what came from the loop, and
	// then the end of the connection from both. Only that is compared.
	cutShort bool
}

var diffCases = []diffCase{
	{name: "plain", request: "GET /proxy/a/b HTTP/1.1\r\nHost: front.test\r\nUser-Agent: t\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"},
	{name: "query", request: "GET /proxy/q?a=1&b=%20x HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"},
	{name: "empty query", request: "GET /proxy/q? HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"},
	{name: "mount point", request: "GET /proxy HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"},
	{name: "escapes", request: "GET /proxy/a%2Fb/%41c%20d HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"},
	{name: "forwarding fields", request: "GET /proxy/f HTTP/1.1\r\nHost: front.test:8080\r\nX-Forwarded-For: 192.0.2.1\r\n" +
		"X-Forwarded-For: 192.0.2.2, 192.0.2.3\r\nX-Real-IP: 192.0.2.9\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: evil\r\n" +
		"X-Forwarded-Port: 1\r\nForwarded: for=192.0.2.4\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"},
	{name: "hop-by-hop fields", request: "GET /proxy/h HTTP/1.1\r\nHost: front.test\r\nConnection: keep-alive, X-Hop\r\n" +
		"X-Hop: dropped\r\nKeep-Alive: 5\r\nProxy-Authorization: x\r\nTE: trailers, gzip\r\nx-lower-case: kept\r\n" +
		"Accept: a\r\nAccept: b\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"},
	{name: "te without trailers", request: "GET /proxy/t HTTP/1.1\r\nHost: front.test\r\nTE: gzip\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"},
	{name: "head", request: "HEAD /proxy/h HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1234\r\n\r\n"},
	{name: "head without length", request: "HEAD /proxy/h HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"},
	{name: "answer fields", request: "GET /proxy/r HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 201 Fine\r\nConnection: X-Up-Hop\r\nX-Up-Hop: dropped\r\nKeep-Alive: timeout=5\r\nX-Up: a\r\nX-Up: b\r\n" +
			"Date: Mon, 02 Jan 2006 15:04:05 GMT\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"},
	{name: "unknown status", request: "GET /proxy/r HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 299 Whatever\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"},
	{name: "sniffed", request: "GET /proxy/s HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Length: 27\r\n\r\n<html><body>hi</body></html"},
	{name: "chunked", request: "GET /proxy/c HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"},
	{name: "chunked empty", request: "GET /proxy/c HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"},
	{name: "trailers announced", request: "GET /proxy/c HTTP/1.1\r\nHost: front.test\r\nTE: trailers\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTrailer: X-Sum\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"2\r\nok\r\n0\r\nX-Sum: 42\r\n\r\n"},
	{name: "trailers not announced", request: "GET /proxy/c HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"2\r\nok\r\n0\r\nX-Late: 1\r\n\r\n"},
	{name: "no length", request: "GET /proxy/n HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end", closeAfter: true},
	{name: "no length, empty", request: "GET /proxy/n HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n", closeAfter: true},
	{name: "informational", request: "GET /proxy/i HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"},
	{name: "no content", request: "GET /proxy/x HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 204 No Content\r\nX-Up: a\r\n\r\n"},
	{name: "not modified", request: "GET /proxy/x HTTP/1.1\r\nHost: front.test\r\nIf-None-Match: \"x\"\r\n\r\n",
		answer: "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\n"},
	{name: "upstream closes", request: "GET /proxy/x HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nabc", closeAfter: true, cutShort: true},
	{name: "upstream closes before answering", request: "GET /proxy/x HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "", closeAfter: true},
	{name: "malformed answer", request: "GET /proxy/x HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 abc Broken\r\n\r\n", closeAfter: true},
	{name: "bad chunk", request: "GET /proxy/x HTTP/1.1\r\nHost: front.test\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", closeAfter: true},
	{name: "refused", request: "GET /proxy/x HTTP/1.1\r\nHost: front.test\r\n\r\n", refused: true},
	{name: "refused head", request: "HEAD /proxy/x HTTP/1.1\r\nHost: front.test\r\n\r\n", refused: true},
	{name: "timeout", request: "GET /proxy/x HTTP/1.1\r\nHost: front.test\r\n\r\n", hang: true, timeout: 200 * time.Millisecond},
	{name: "close requested", request: "GET /proxy/x HTTP/1.1\r\nHost: front.test\r\nConnection: close\r\n\r\n",
		answer: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"},
}

func TestLoopVersusH1(t *testing.T) {
	for _, tt := range diffCases {
		t.Run(tt.name, func(t *testing.T) {
			want := runDiffCase(t, tt, EngineJunction)
			got := runDiffCase(t, tt, EngineLoop)
			if got.ServedInLoop != 1 {
				t.Errorf("the loop served %d requests, want 1", got.ServedInLoop)
			}
			got.ServedInLoop = 0
			if tt.cutShort {
				got = outcome{Method: got.Method, URI: got.URI, SeenHeader: got.SeenHeader, Failed: got.Failed, Logs: got.Logs}
				want = outcome{Method: want.Method, URI: want.URI, SeenHeader: want.SeenHeader, Failed: want.Failed, Logs: want.Logs}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("loop and h1 differ:\nloop %+v\nh1   %+v", got, want)
			}
		})
	}
}

// runDiffCase runs tt through a front on engine.
func runDiffCase(t *testing.T, tt diffCase, engine string) outcome {
	up := newScriptedUpstream(t, tt.answer, tt.closeAfter, tt.hang)
	port := up.port()
	if tt.refused {
		_ = up.l.Close()
	}
	var logs logtest.Log
	p := mustProxy(t, ReverseProxyOptions{Host: "127.0.0.1", Port: port, Path: "/base", Timeout: tt.timeout,
		Logger: logs.Logger(slog.LevelDebug)})
	var inLoop atomic.Int64
	tree := NewTree()
	mustMount(t, tree, "proxy", MeteredProxy(p, func(int, time.Duration) { inLoop.Add(1) }, p))
	s, err := NewServer(ServerOptions{Handler: tree, Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	addr := l.Addr().String()
	o := exchangeRaw(t, addr, tt.request)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil { // the exchange is counted by then
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	up.mu.Lock()
	if len(up.seen) > 0 {
		r := up.seen[0]
		o.Method, o.URI, o.SeenHeader = r.Method, r.RequestURI, r.Header
		o.Host = strings.Replace(r.Host, strconv.Itoa(port), "UPSTREAM", 1)
		if v := r.Header.Get("X-Forwarded-Port"); v == strconv.Itoa(addrPort(t, addr)) {
			r.Header.Set("X-Forwarded-Port", "PORT")
		}
	}
	up.mu.Unlock()
	for _, rec := range logs.Records(t) {
		status, _ := rec["status"].(float64)
		o.Logs = append(o.Logs, rec["level"].(string)+" "+rec["msg"].(string)+" "+strconv.Itoa(int(status)))
	}
	o.ServedInLoop = inLoop.Load()
	return o
}

func addrPort(t *testing.T, addr string) int {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(port)
	return n
}

// exchangeRaw sends raw to addr and reads the answer.
func exchangeRaw(t *testing.T, addr, raw string) outcome {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	method, _, _ := strings.Cut(raw, " ")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	var o outcome
	if err != nil {
		o.Failed = true
		return o
	}
	for resp.StatusCode < 200 { // an informational answer: the final one follows
		o.Body += resp.Status + " " + resp.Header.Get("Link") + "|"
		if resp, err = http.ReadResponse(br, &http.Request{Method: method}); err != nil {
			o.Failed = true
			return o
		}
	}
	body, err := io.ReadAll(resp.Body)
	o.Status, o.ContentLength, o.TransferEncoding = resp.StatusCode, resp.ContentLength, resp.TransferEncoding
	o.Header, o.Body, o.Trailer = resp.Header, o.Body+string(body), resp.Trailer
	if errors.Is(err, io.ErrUnexpectedEOF) || err != nil {
		o.Failed = true
	}
	o.Header.Del("Date")
	if tr := o.Header.Values("Trailer"); len(tr) > 0 { // announced in map order
		keys := strings.Split(strings.Join(tr, ","), ",")
		for i := range keys {
			keys[i] = strings.TrimSpace(keys[i])
		}
		slices.Sort(keys)
		o.Header["Trailer"] = []string{strings.Join(keys, ", ")}
	}
	return o
}
