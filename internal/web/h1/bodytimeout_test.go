package h1

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/internal/pipenet"
)

// dialPipe connects a client to the server on l; it returns the client's
// end, and a reader of it.
func dialPipe(l *pipenet.Listener) (net.Conn, *bufio.Reader) {
	c := l.Dial()
	return c, bufio.NewReader(c)
}

// servePipes serves s on a pipenet.Listener until the test ends.
func servePipes(t *testing.T, s *Server) *pipenet.Listener {
	l := pipenet.New()
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	t.Cleanup(func() {
		_ = s.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return l
}

// bodyReader reads the whole body and answers its length, or 408 when
// the read fails; it sends the error, and that of a read after it, on
// errs.
func bodyReader(errs chan<- [2]error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		var again error
		if err != nil {
			start := time.Now()
			_, again = r.Body.Read(make([]byte, 1))
			if time.Since(start) != 0 {
				again = fmt.Errorf("the read after the timeout waited %v (%w)", time.Since(start), again)
			}
		}
		errs <- [2]error{err, again}
		if err != nil {
			w.WriteHeader(http.StatusRequestTimeout)
			return
		}
		_, _ = io.WriteString(w, strconv.Itoa(len(b)))
	}
}

// TestBodyTimeout: a body that sends nothing for BodyTimeout fails with
// ErrBodyTimeout (every later read too, at once), and the connection is
// closed after the answer; one that trickles a byte a little faster
// passes, however long it takes; without BodyTimeout, neither the body
// nor the handler has a deadline (not the head's either).
func TestBodyTimeout(t *testing.T) {
	const timeout = 10 * time.Second
	tests := []struct {
		name        string
		bodyTimeout time.Duration
		gap         time.Duration
		status      int
		closed      bool
	}{
		{"stalls", timeout, timeout + time.Second, http.StatusRequestTimeout, true},
		{"trickles", timeout, timeout - time.Second, http.StatusOK, false},
		{"unbounded", 0, 3 * timeout, http.StatusOK, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				errs := make(chan [2]error, 1)
				l := servePipes(t, &Server{Handler: bodyReader(errs), BodyTimeout: tt.bodyTimeout, ReadHeaderTimeout: timeout})
				c, br := dialPipe(l)
				const n = 3
				fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", n)
				wrote := make(chan struct{})
				defer func() { _ = c.Close(); <-wrote }()
				go func() {
					defer close(wrote)
					for range n {
						time.Sleep(tt.gap)
						if _, err := c.Write([]byte{'x'}); err != nil {
							return // the server gave up
						}
					}
				}()
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				got := <-errs
				if tt.status == http.StatusOK && got[0] != nil {
					t.Errorf("read: %v", got[0])
				}
				if tt.status != http.StatusOK {
					for i, err := range got {
						if !errors.Is(err, ErrBodyTimeout) || !errors.Is(err, os.ErrDeadlineExceeded) || err.Error() != got[0].Error() {
							t.Errorf("read %d: %v, want ErrBodyTimeout and os.ErrDeadlineExceeded", i, err)
						}
					}
				}
				synctest.Wait()
				_ = c.SetReadDeadline(time.Now())
				_, err = br.ReadByte()
				if closed := errors.Is(err, io.EOF); resp.StatusCode != tt.status || closed != tt.closed {
					t.Errorf("answer %d, closed %v; want %d, %v", resp.StatusCode, closed, tt.status, tt.closed)
				}
			})
		})
	}
}

// TestDeadlinesPerRequest: a keep-alive connection whose requests arrive
// whole (head and body in one write, as nearly all do) costs no read
// deadline per request (the idle timeout's, set for the first wait,
// serves: see TestIdleDeadlinePerRequest), with a body timeout set and
// the body read; a body that arrives later gets its deadline, and the
// wait after it the idle timeout's again.
func TestDeadlinesPerRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errs := make(chan [2]error, 1)
		l := servePipes(t, &Server{Handler: bodyReader(errs), BodyTimeout: time.Second, ReadHeaderTimeout: time.Second, IdleTimeout: time.Minute})
		c, br := dialPipe(l)
		defer c.Close()
		post := func(head, body string) {
			t.Helper()
			if _, err := io.WriteString(c, head+body); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			if got := <-errs; resp.StatusCode != http.StatusOK || got[0] != nil {
				t.Fatalf("answer %d, read %v", resp.StatusCode, got[0])
			}
		}
		const head = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n"
		post(head, "ab") // the first: the read header timeout from the accept
		synctest.Wait()
		before := l.ReadDeadlines.Load()
		const n = 5
		for range n {
			post(head, "ab")
		}
		synctest.Wait()
		if got := l.ReadDeadlines.Load() - before; got != 0 {
			t.Errorf("%d requests sent whole: %d read deadlines, want 0", n, got)
		}
		before = l.ReadDeadlines.Load()
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			time.Sleep(time.Millisecond)
			_, _ = io.WriteString(c, "ab")
		}()
		post(head, "")
		<-wrote
		synctest.Wait()
		if got := l.ReadDeadlines.Load() - before; got != 2 {
			t.Errorf("a body sent after its head: %d read deadlines, want 2: the body's and the idle one", got)
		}
	})
}

// TestWriteDeadlinePerRequest: the engine clears a write deadline after
// the answer of a handler that set one, so that it does not cut the next
// answer on the connection, and sets none for the other requests.
func TestWriteDeadlinePerRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := servePipes(t, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "2")
			_, _ = io.WriteString(w, "ok")
			if r.URL.Path == "/deadline" {
				rc := http.NewResponseController(w)
				if err := rc.Flush(); err != nil {
					t.Error(err)
				}
				if err := rc.SetWriteDeadline(time.Unix(1, 0)); err != nil { // past: any later write fails
					t.Error(err)
				}
			}
		})})
		c, br := dialPipe(l)
		defer c.Close()
		get := func(path string) {
			t.Helper()
			if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			answeredOK(t, br, path)
		}
		for range 3 {
			get("/")
		}
		synctest.Wait()
		if n := l.WriteDeadlines.Load(); n != 0 {
			t.Errorf("%d write deadlines for 3 requests whose handlers set none, want 0", n)
		}
		get("/deadline")
		get("/")
		synctest.Wait()
		if n := l.WriteDeadlines.Load(); n != 2 {
			t.Errorf("%d write deadlines, want 2 (the handler's, the engine's clearing it)", n)
		}
	})
}

// TestIdleDeadlinePerRequest: the idle timeout's read deadline, set for
// the wait after one request, serves the waits after the next ones while
// it is at most IdleTimeout/64 short; a handler that sets a read
// deadline, a body read with its own and a watch (which clears it) make
// the next wait set it again; an idle connection is closed after between
// 63/64 of IdleTimeout and IdleTimeout.
func TestIdleDeadlinePerRequest(t *testing.T) {
	const idle = 64 * time.Second
	for _, last := range []string{"/deadline", "/watched", "/body", "/"} {
		t.Run(last, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := servePipes(t, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					switch r.URL.Path {
					case "/deadline": // cleared: the idle deadline would be gone
						if err := http.NewResponseController(w).SetReadDeadline(time.Time{}); err != nil {
							t.Error(err)
						}
					case "/watched":
						time.Sleep(2 * WatchDelay) // fake time: the watch starts
					case "/body": // the body arrives after its head: read with a deadline
						if b, err := io.ReadAll(r.Body); err != nil || string(b) != "ab" {
							t.Errorf("body %q, %v", b, err)
						}
					}
					_, _ = io.WriteString(w, "ok")
				}), IdleTimeout: idle, BodyTimeout: time.Second})
				c, br := dialPipe(l)
				defer c.Close()
				get := func(path string) {
					t.Helper()
					if path == "/body" {
						if _, err := io.WriteString(c, "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n"); err != nil {
							t.Fatal(err)
						}
						synctest.Wait() // the handler waits for the body
						if _, err := io.WriteString(c, "ab"); err != nil {
							t.Fatal(err)
						}
					} else if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
						t.Fatal(err)
					}
					answeredOK(t, br, path)
					synctest.Wait() // the engine waits for the next request
				}
				get("/")
				count := func(n int) {
					t.Helper()
					before := l.ReadDeadlines.Load()
					get("/")
					if got := l.ReadDeadlines.Load() - before; got != int64(n) {
						t.Errorf("%d read deadlines, want %d", got, n)
					}
				}
				count(0) // no time has passed: the deadline serves
				time.Sleep(idle / 64)
				count(0) // at the edge
				time.Sleep(time.Millisecond)
				count(1) // past it
				get(last)
				answered := time.Now()
				if _, err := br.ReadByte(); err != io.EOF {
					t.Fatalf("read on the idle connection: %v, want io.EOF", err)
				}
				if d := time.Since(answered); d < idle-idle/64 || d > idle {
					t.Errorf("closed %v after the answer to %s, want %v", d, last, idle)
				}
			})
		})
	}
}

// answeredOK reads the answer to the request for path from br and checks
// that its body is "ok".
func answeredOK(t *testing.T, br *bufio.Reader, path string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if body, _ := io.ReadAll(resp.Body); string(body) != "ok" {
		t.Fatalf("%s: body %q", path, body)
	}
}
