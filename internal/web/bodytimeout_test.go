package web

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/internal/pipenet"
)

// servePipes serves h with opts on a pipenet.Listener until the test ends.
func servePipes(t *testing.T, h http.Handler, opts ServerOptions) *pipenet.Listener {
	t.Helper()
	opts.Handler = h
	opts.Engine = testEngine(t)
	s, err := NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	l := pipenet.New()
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	t.Cleanup(func() {
		if err := s.Shutdown(t.Context()); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return l
}

const testBodyTimeout = 10 * time.Second

// trickle sends a POST to target with a body of n bytes, one byte every
// gap, and returns the answer's status and whether the server closed the
// connection after it (status -1: no answer, the connection was closed).
func trickle(t *testing.T, l *pipenet.Listener, target string, n int, gap time.Duration) (status int, closed bool) {
	t.Helper()
	c := l.Dial()
	defer c.Close()
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", target, n)
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			resp = nil
		} else {
			_, _ = io.Copy(io.Discard, resp.Body)
		}
		answered <- resp
	}()
	for range n {
		if _, err := c.Write([]byte{'x'}); err != nil {
			break // the server closed the connection
		}
		time.Sleep(gap)
	}
	resp := <-answered
	if resp == nil {
		return -1, true
	}
	return resp.StatusCode, closedNow(c, br)
}

// closedNow reports whether the server has closed c, once it has nothing
// left to do (a connection kept alive waits for the next request).
func closedNow(c net.Conn, br *bufio.Reader) bool {
	synctest.Wait()
	_ = c.SetReadDeadline(time.Now())
	_, err := br.ReadByte()
	return errors.Is(err, io.EOF)
}

// readingHandler reads the whole body as the bridge services do and
// answers 200 with its length, or 408 with the read error, which it
// sends on errs.
func readingHandler(errs chan<- error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		errs <- err
		if err != nil {
			w.WriteHeader(http.StatusRequestTimeout)
			return
		}
		io.WriteString(w, strconv.Itoa(len(b)))
	})
}

// readingUpstream is a reverse proxy whose upstream reads the streamed
// body to its end and answers 200, sending the read error on errs.
func readingUpstream(t *testing.T, errs chan<- error) http.Handler {
	h, err := NewReverseProxy(ReverseProxyOptions{Host: "up.test", Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		_, err := io.Copy(io.Discard, r.Body)
		errs <- err
		if err != nil {
			return nil, err
		}
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("ok")), ContentLength: 2, Request: r}, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestBodyTimeout is F4 (docs/SECURITY.md), scaled down in fake time: a body
// that stalls longer than the body timeout is cut (the handler's read
// fails with ErrBodyTimeout and the connection is closed after the
// answer), one that trickles a byte a little faster than the timeout
// passes although it takes many times the timeout in all. For a handler
// that reads the body (as the Caller does) and for a reverse proxy
// streaming it to its upstream.
func TestBodyTimeout(t *testing.T) { onEngines(t, testBodyTimeoutEngines) }

func testBodyTimeoutEngines(t *testing.T) {
	services := []struct {
		name    string
		handler func(t *testing.T, errs chan<- error) http.Handler
		cut     int // the status of a cut body
	}{
		{"reader", func(_ *testing.T, errs chan<- error) http.Handler { return readingHandler(errs) }, http.StatusRequestTimeout},
		{"reverseproxy", readingUpstream, http.StatusRequestTimeout},
	}
	for _, svc := range services {
		t.Run(svc.name+"/slower", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				errs := make(chan error, 1)
				l := servePipes(t, svc.handler(t, errs), ServerOptions{BodyTimeout: testBodyTimeout})
				status, closed := trickle(t, l, "/x", 3, testBodyTimeout+time.Second)
				if err := <-errs; !errors.Is(err, ErrBodyTimeout) {
					t.Errorf("handler's read: %v, want ErrBodyTimeout", err)
				}
				if status != svc.cut || !closed {
					t.Errorf("answer %d, closed %v; want %d and the connection closed", status, closed, svc.cut)
				}
			})
		})
		t.Run(svc.name+"/faster", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				errs := make(chan error, 1)
				l := servePipes(t, svc.handler(t, errs), ServerOptions{BodyTimeout: testBodyTimeout})
				start := time.Now()
				status, _ := trickle(t, l, "/x", 30, testBodyTimeout-time.Second)
				if err := <-errs; err != nil {
					t.Errorf("handler's read: %v", err)
				}
				if status != http.StatusOK {
					t.Errorf("answer %d, want 200", status)
				}
				if took := time.Since(start); took < 20*testBodyTimeout {
					t.Fatalf("the body took %v, not many times the timeout", took)
				}
			})
		})
	}
}

// TestBodyTimeoutDefault: a zero BodyTimeout is DefaultBodyTimeout.
func TestBodyTimeoutDefault(t *testing.T) { onEngines(t, testBodyTimeoutDefault) }

func testBodyTimeoutDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errs := make(chan error, 1)
		l := servePipes(t, readingHandler(errs), ServerOptions{})
		start := time.Now()
		if status, _ := trickle(t, l, "/x", 2, DefaultBodyTimeout-time.Second); status != http.StatusOK {
			t.Errorf("a byte every %v: %d, want 200", DefaultBodyTimeout-time.Second, status)
		}
		<-errs
		if status, _ := trickle(t, l, "/x", 2, DefaultBodyTimeout+time.Second); status != http.StatusRequestTimeout {
			t.Errorf("a byte every %v: %d, want 408", DefaultBodyTimeout+time.Second, status)
		}
		if err := <-errs; !errors.Is(err, ErrBodyTimeout) {
			t.Errorf("handler's read: %v", err)
		}
		if took := time.Since(start); took < 2*DefaultBodyTimeout {
			t.Errorf("took %v", took)
		}
	})
	if _, err := NewServer(ServerOptions{Handler: http.NotFoundHandler(), BodyTimeout: -1}); !errors.Is(err, ErrBadOption) {
		t.Errorf("negative BodyTimeout: %v, want ErrBadOption", err)
	}
}

// TestBodyTimeoutUnreadBody: a handler that answers without reading the
// body (a refusal) is not held by a client that stalls its body: net/http
// reads what is left of a small body before it answers, within the
// deadline, then closes the connection.
func TestBodyTimeoutUnreadBody(t *testing.T) { onEngines(t, testBodyTimeoutUnreadBody) }

func testBodyTimeoutUnreadBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "refused") })
		l := servePipes(t, h, ServerOptions{BodyTimeout: testBodyTimeout})
		c := l.Dial()
		defer c.Close()
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nx")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if string(body) != "refused" {
			t.Errorf("answer %q", body)
		}
		if !closedNow(c, br) {
			t.Error("the connection is still open after the answer")
		}
	})
}

// TestBodyTimeoutLongAnswer: once the body has ended, the deadline is
// gone: a handler may take many times the body timeout to answer (a slow
// WAMP call), even if it reads past the end of the body again, and its
// request's context is not canceled.
func TestBodyTimeoutLongAnswer(t *testing.T) { onEngines(t, testBodyTimeoutLongAnswer) }

func testBodyTimeoutLongAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.ReadAll(r.Body); err != nil {
				t.Errorf("read: %v", err)
			}
			if _, err := r.Body.Read(make([]byte, 1)); err != io.EOF {
				t.Errorf("read after the end: %v", err)
			}
			time.Sleep(5 * testBodyTimeout)
			if err := r.Context().Err(); err != nil {
				t.Errorf("context: %v", err)
			}
			io.WriteString(w, "done")
		})
		l := servePipes(t, h, ServerOptions{BodyTimeout: testBodyTimeout})
		if status, closed := trickle(t, l, "/", 1, 0); status != http.StatusOK || closed {
			t.Errorf("answer %d, closed %v; want 200, kept alive", status, closed)
		}
	})
}

// TestBodyTimeoutHijacked: a hijacked connection (a WebSocket) has no
// deadline, whether its upgrade request carried a body or not.
func TestBodyTimeoutHijacked(t *testing.T) { onEngines(t, testBodyTimeoutHijacked) }

func testBodyTimeoutHijacked(t *testing.T) {
	for _, body := range []string{"", "abc"} {
		t.Run(fmt.Sprintf("body %q", body), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var wg sync.WaitGroup
				defer wg.Wait()
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					conn, rw, err := http.NewResponseController(w).Hijack()
					if err != nil {
						t.Errorf("hijack: %v", err)
						return
					}
					wg.Go(func() { echoLines(conn, rw) })
				})
				l := servePipes(t, h, ServerOptions{BodyTimeout: testBodyTimeout})
				c := l.Dial()
				defer c.Close()
				fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				br := bufio.NewReader(c)
				time.Sleep(3 * testBodyTimeout)
				io.WriteString(c, "ping\n")
				line, err := br.ReadString('\n')
				if line != body+"ping\n" {
					t.Errorf("echo after 3 body timeouts: %q, %v", line, err)
				}
			})
		})
	}
}

// echoLines echoes the lines of a hijacked connection until it closes.
func echoLines(conn net.Conn, rw *bufio.ReadWriter) {
	defer conn.Close()
	for {
		line, err := rw.ReadString('\n')
		if err != nil {
			return
		}
		io.WriteString(conn, line)
	}
}
