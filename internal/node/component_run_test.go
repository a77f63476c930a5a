package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/junction-wamp/junction/client"
)

// withComponentReconnect replaces the components' reconnect options for
// the test.
func withComponentReconnect(t *testing.T, o client.ReconnectOptions) {
	saved := componentReconnect
	componentReconnect = func() client.ReconnectOptions { return o }
	t.Cleanup(func() { componentReconnect = saved })
}

// logRecord is a log line with its attributes (groups ignored).
type logRecord struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

// logRecorder is a slog.Handler that hands every record to ch, dropping
// records when ch is full (a logger must never block).
type logRecorder struct {
	ch    chan logRecord
	attrs []slog.Attr
}

func newLogRecorder() *logRecorder { return &logRecorder{ch: make(chan logRecord, 256)} }

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	for _, a := range h.attrs {
		rec.attrs[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool { rec.attrs[a.Key] = a.Value.String(); return true })
	select {
	case h.ch <- rec:
	default:
	}
	return nil
}

func (h *logRecorder) WithAttrs(as []slog.Attr) slog.Handler {
	return &logRecorder{ch: h.ch, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h *logRecorder) WithGroup(string) slog.Handler { return h }

// wait returns the first record (from now on) that ok accepts.
func (h *logRecorder) wait(t *testing.T, what string, ok func(logRecord) bool) logRecord {
	t.Helper()
	for {
		if r := receive(t, h.ch, what); ok(r) {
			return r
		}
	}
}

// connectFailed accepts the warning of a failed connection attempt of the
// component at path.
func connectFailed(path string) func(logRecord) bool {
	return func(r logRecord) bool {
		return r.level == slog.LevelWarn && r.attrs["component"] == path
	}
}

// freeAddr returns a loopback address nothing listens on: the system
// chose the port for a listener that is closed again.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// startAsync starts n on a context that does not end before the test
// does, and fails the test if Start does not return.
func startAsync(t *testing.T, n *Node) {
	t.Helper()
	res := make(chan error, 1)
	go func() { res <- n.Start(t.Context()) }()
	if err := receive(t, res, "return from Start"); err != nil {
		t.Fatalf("Start: %v", err)
	}
}

// TestContainerStartsBeforeRouter starts a container whose router is not
// up yet: Start returns at once, the components retry (each failure
// logged at warn with the component's path and URL), and they join,
// register and subscribe once a node is started on that address.
func TestContainerStartsBeforeRouter(t *testing.T) {
	withComponentReconnect(t, client.ReconnectOptions{RetryFirst: true, MinBackoff: 5e6, MaxBackoff: 50e6})
	target, web := webTarget(t)
	upstream, _ := webTarget(t)
	addr := freeAddr(t)
	logs := newLogRecorder()
	b, err := New(parse(t, containerDoc(addr, target.URL), nil), Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	startAsync(t, b)
	t.Cleanup(func() { b.Stop(context.Background()) })
	for _, path := range []string{"workers[0].components[0]", "workers[0].components[1]"} {
		r := logs.wait(t, "connect warning of "+path, connectFailed(path))
		if r.attrs["url"] != "ws://"+addr+"/ws" || r.attrs["err"] == "" {
			t.Errorf("warning %q %v, want the URL and the error", r.msg, r.attrs)
		}
	}
	_, port, _ := splitHostPort(t, addr)
	p, _ := strconv.Atoi(port)
	start(t, parse(t, routerDoc(p, target.URL, upstream.URL), nil), t.TempDir())
	if err := b.WaitComponents(testCtx(t)); err != nil {
		t.Fatalf("WaitComponents: %v", err)
	}
	checkContainer(t, addr, web)
}

// TestContainerStopWhileConnecting stops a container whose components
// are still connecting: in the backoff between two attempts, and in a
// WebSocket handshake the server never answers. Stop returns at once
// (every wait is an hour long otherwise) and leaves no goroutine behind.
func TestContainerStopWhileConnecting(t *testing.T) {
	withComponentReconnect(t, client.ReconnectOptions{RetryFirst: true, MinBackoff: time.Hour, JoinTimeout: time.Hour})
	tests := []struct {
		name   string
		listen bool // accept connections and never answer them
	}{
		{"in backoff", false},
		{"in handshake", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, accepted := freeAddr(t), make(chan net.Conn, 4)
			if tt.listen {
				addr = silentServer(t, accepted)
			}
			before := goleak.IgnoreCurrent()
			logs := newLogRecorder()
			n, err := New(parse(t, stalledContainerDoc(addr), nil), Options{Logger: slog.New(logs)})
			if err != nil {
				t.Fatal(err)
			}
			startAsync(t, n)
			if tt.listen {
				c := receive(t, accepted, "connection")
				defer c.Close()
			} else {
				logs.wait(t, "connect warning", connectFailed("workers[0].components[0]"))
			}
			if err := n.Stop(testCtx(t)); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			if err := n.WaitComponents(testCtx(t)); !errors.Is(err, context.Canceled) {
				t.Errorf("WaitComponents after Stop: %v, want the canceled connection", err)
			}
			goleak.VerifyNone(t, before)
		})
	}
}

// stalledContainerDoc is a container with a RESTCallee reaching a router
// at addr, with an hour's connect timeout.
func stalledContainerDoc(addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	return fmt.Sprintf(`{"version": 2, "workers": [{"type": "container", "components": [
		{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1",
			"transport": {"type": "websocket", "endpoint": {"type": "tcp", "host": "%s", "port": %s, "timeout": 3600},
				"url": "ws://%s/ws"},
			"extra": {"procedure": "com.example.rest", "baseurl": "http://127.0.0.1:1/api"}}]}]}`, host, port, addr)
}

// silentServer accepts TCP connections on loopback and hands them to
// accepted without answering; it closes at the end of the test.
func silentServer(t *testing.T, accepted chan<- net.Conn) string {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// TestContainerComponentRefused: a container component whose
// registration the router refuses is logged at error with its path and
// stays stopped; the node keeps running and stops cleanly.
func TestContainerComponentRefused(t *testing.T) {
	a := start(t, parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "permissions": [
			{"uri": "", "match": "prefix", "allow": {"call": true}}]}]}],
		"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}]}]}`, nil),
		t.TempDir())
	logs := newLogRecorder()
	b, err := New(parse(t, stalledContainerDoc(address(t, a, "workers[0].transports[0]")), nil), Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	startAsync(t, b)
	err = b.WaitComponents(testCtx(t))
	if wampURIOf(err) != "wamp.error.not_authorized" || !strings.Contains(err.Error(), "workers[0].components[0]: ") {
		t.Errorf("WaitComponents: %v, want not_authorized at the component's path", err)
	}
	r := logs.wait(t, "error log", func(r logRecord) bool { return r.level == slog.LevelError })
	if r.attrs["component"] != "workers[0].components[0]" || r.attrs["err"] == "" {
		t.Errorf("error log %q %v, want the component's path and the error", r.msg, r.attrs)
	}
	if err := b.Stop(testCtx(t)); err != nil {
		t.Errorf("Stop: %v", err)
	}
}
