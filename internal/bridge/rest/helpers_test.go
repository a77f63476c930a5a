package rest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/wamp"
)

const realm = "realm1"

// testCtx bounds a test's waits, so that a bug fails the test instead of
// hanging it.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// env is a router behind a dialer that can be pointed at a new router.
type env struct {
	t  testing.TB
	mu sync.Mutex // guards r
	r  *router.Router
}

func newEnv(t testing.TB) *env {
	e := &env{t: t, r: newRouter(t)}
	t.Cleanup(func() {
		e.mu.Lock()
		r := e.r
		e.mu.Unlock()
		r.Close()
	})
	return e
}

func newRouter(t testing.TB) *router.Router {
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: realm}}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// dial makes an in-memory pair and attaches one end to the current router.
func (e *env) dial(context.Context) (wamp.Peer, error) {
	mine, theirs := local.Pair(local.Options{})
	e.mu.Lock()
	r := e.r
	e.mu.Unlock()
	go r.Attach(theirs)
	return mine, nil
}

// restart points the dialer at a new router, then closes the old one.
func (e *env) restart() {
	nr := newRouter(e.t)
	e.mu.Lock()
	old := e.r
	e.r = nr
	e.mu.Unlock()
	old.Close()
}

// client connects a reconnecting client; joined receives a value after
// each join (registrations and subscriptions renewed).
func (e *env) client(t testing.TB) (*client.Client, <-chan struct{}) {
	joined := make(chan struct{}, 16)
	opts := client.ReconnectOptions{MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		OnJoin: func(*client.Session) {
			select {
			case joined <- struct{}{}:
			default:
			}
		}}
	c, err := client.Connect(testCtx(t), e.dial, client.Config{Realm: realm}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	<-joined
	return c, joined
}

// startComponent starts comp on a new client of e and stops it at cleanup.
func startComponent(t testing.TB, e *env, comp Component) (*client.Client, <-chan struct{}) {
	c, joined := e.client(t)
	if err := comp.Start(testCtx(t), c); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := comp.Stop(testCtx(t)); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return c, joined
}

// server is an httptest server on 127.0.0.1 that closes at cleanup.
func server(t testing.TB, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// uriOf returns the WAMP error URI of err, or "".
func uriOf(err error) wamp.URI {
	if e, ok := errors.AsType[*wamp.RequestError](err); ok {
		return e.URI
	}
	return ""
}

// recv waits for a value of ch, failing the test at ctx's end.
func recv[T any](t testing.TB, ctx context.Context, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatal("timed out waiting")
		var zero T
		return zero
	}
}
