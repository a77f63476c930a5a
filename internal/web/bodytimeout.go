package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/web/h1"
)

// DefaultBodyTimeout is how long a request body may stall (no byte
// arriving) before its read fails, when ServerOptions.BodyTimeout is 0.
// 30 seconds outlasts several TCP retransmissions on a lossy mobile link
// (which back off 1, 2, 4, 8 s...) and matches the bridge's call timeout,
// while a silent client holds its connection for half a minute at most.
// (nginx's client_body_timeout, the same idea, defaults to 60 s.)
const DefaultBodyTimeout = 30 * time.Second

// ErrBodyTimeout is what a request body's Read returns (wrapped, with the
// connection's os.ErrDeadlineExceeded) when the client sent nothing for
// the body timeout. Handlers may answer 408 Request Timeout; the server
// closes the connection after the answer, whatever it is. It is
// h1.ErrBodyTimeout, which the h1 engine returns: the engine bounds its
// bodies itself, bodyTimeout below does it for net/http's server.
var ErrBodyTimeout = h1.ErrBodyTimeout

// readDeadliner is what http.ResponseController uses to set a read
// deadline; the server's own ResponseWriter has it.
type readDeadliner interface {
	SetReadDeadline(time.Time) error
}

// bodyTimeout bounds every request body of net/http's server (the h1
// engine does it itself: h1.Server.BodyTimeout) with an idle-read timeout: the
// connection's read deadline is set to timeout from now when the handler
// starts and again before each Read of the body, so a body that keeps
// arriving is never cut, however long it takes, and one that stalls for
// timeout fails with ErrBodyTimeout. The deadline also bounds what the
// server reads of an unread body (up to 256 KiB, to reuse the
// connection), so a handler that answers without reading cannot be held
// either. A connection whose body timed out is closed once the answer is
// written (net/http would not know to, when the handler reads the body in
// full-duplex mode, as the reverse proxy does).
//
// The deadline is never set once the body has ended: net/http clears it
// there, before it watches the idle connection for the client going away
// (a deadline left set would cancel the request's context in the middle
// of a long answer). Requests without a body are left alone, and so are
// hijacked connections (WebSockets): Hijack clears the deadline, and a
// handler must not read the body after Hijack, as net/http requires.
//
// Safe for concurrent use.
type bodyTimeout struct {
	timeout time.Duration
	spoiled sync.Map // net.Conn -> struct{}: to close when its answer is written
}

// connKey is the context key of a request's connection (ConnContext).
type connKey struct{}

// connContext makes a connection known to its requests.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// connState closes a spoiled connection when it turns idle: its answer is
// written, and what is left of its body must not be read as a request.
func (bt *bodyTimeout) connState(c net.Conn, s http.ConnState) {
	switch s {
	case http.StateIdle:
		if _, ok := bt.spoiled.LoadAndDelete(c); ok {
			_ = c.Close()
		}
	case http.StateClosed, http.StateHijacked:
		bt.spoiled.Delete(c)
	}
}

// wrap returns next with every request body bounded. The handler gets a
// shallow copy of the request with the body wrapped: net/http keeps its
// own, whose type tells it how to finish an unread body.
func (bt *bodyTimeout) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		d, ok := w.(readDeadliner)
		if !ok {
			d = http.NewResponseController(w)
		}
		b := &deadlineBody{ReadCloser: r.Body, conn: d, timeout: bt.timeout}
		b.extend()
		r2 := new(http.Request)
		*r2 = *r
		r2.Body = b
		next.ServeHTTP(w, r2)
		b.off.Store(true)
		if b.timedOut.Load() {
			if c, ok := r.Context().Value(connKey{}).(net.Conn); ok {
				bt.spoiled.Store(c, struct{}{})
			}
		}
	})
}

// deadlineBody is a request body whose every Read extends the
// connection's read deadline, until the body has ended or the handler has
// returned (a transport may still read the body then, on a goroutine of
// its own, while the connection serves the next request). It is read by
// one goroutine at a time, as every request body.
type deadlineBody struct {
	io.ReadCloser
	conn     readDeadliner
	timeout  time.Duration
	off      atomic.Bool // the body ended (an error or io.EOF), or the handler returned: hands off
	timedOut atomic.Bool // the body ended with ErrBodyTimeout
}

func (b *deadlineBody) extend() {
	_ = b.conn.SetReadDeadline(time.Now().Add(b.timeout)) // no deadline without one: nothing else to do
}

// Read extends the deadline, then reads.
func (b *deadlineBody) Read(p []byte) (int, error) {
	if b.off.Load() {
		return b.ReadCloser.Read(p)
	}
	b.extend()
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.off.Store(true)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			b.timedOut.Store(true)
			err = fmt.Errorf("%w: %w", ErrBodyTimeout, err)
		}
	}
	return n, err
}
