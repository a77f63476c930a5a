package web

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/web/h1"
)

// The server tests run on both engines (ServerOptions.Engine): onEngines
// runs a test as one subtest per engine, and the helpers that start a
// server (startServer's callers, servePipes, serveTree, newFront) serve
// on the engine of the test that calls them.

var engines = append([]string{EngineStdlib, EngineJunction}, loopEngines...)

// engineOf maps the name of an engine subtest to its engine.
var engineOf sync.Map

// onEngines runs f once per engine, as subtests named after them.
func onEngines(t *testing.T, f func(t *testing.T)) {
	for _, e := range engines {
		t.Run(e, func(t *testing.T) {
			engineOf.Store(t.Name(), e)
			t.Cleanup(func() { engineOf.Delete(t.Name()) })
			f(t)
		})
	}
}

// testEngine is the engine of t's enclosing onEngines subtest; net/http's
// outside one.
func testEngine(t testing.TB) string {
	for name := t.Name(); ; {
		if e, ok := engineOf.Load(name); ok {
			return e.(string)
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return EngineStdlib
		}
		name = name[:i]
	}
}

// frontLoops is the number of loops of a front on the loop engine: more
// than one, whatever the machine, so that the tests meet several.
const frontLoops = 2

// front is a test's HTTP server on the test's engine, with no middleware:
// what httptest.NewServer is for net/http.
type front struct {
	URL      string
	Listener net.Listener
	srv      engine
	done     chan error
	client   *http.Client
}

// newFront serves h on 127.0.0.1:0 until the test ends.
func newFront(t testing.TB, h http.Handler) *front {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &front{URL: "http://" + l.Addr().String(), Listener: l, done: make(chan error, 1)}
	switch testEngine(t) {
	case EngineJunction:
		f.srv = &h1.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	case EngineLoop:
		var err error
		f.srv, err = loopEngineOf(&h1.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, ServerOptions{Handler: h, Loops: frontLoops})
		if err != nil {
			t.Fatal(err)
		}
	default:
		f.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	}
	go func() { f.done <- f.srv.Serve(l) }()
	t.Cleanup(f.Close)
	return f
}

// Close closes the server and every connection it serves (not hijacked
// ones), idempotent.
func (f *front) Close() {
	_ = f.srv.Close()
	if f.done != nil {
		<-f.done
		f.done = nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = f.srv.Shutdown(ctx) // waits for the engine's connection goroutines
	if f.client != nil {
		f.client.CloseIdleConnections()
	}
}

// Client is an HTTP client for f, its idle connections closed with f.
func (f *front) Client() *http.Client {
	if f.client == nil {
		f.client = &http.Client{Transport: &http.Transport{}}
	}
	return f.client
}
