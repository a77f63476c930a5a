package bridge

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// streamEnv is an env whose bridge session serves an event stream over
// HTTP on loopback.
type streamEnv struct {
	*env
	es  *EventStream
	srv *httptest.Server
}

func newStreamEnv(t *testing.T, o EventStreamOptions) *streamEnv { return newStreamEnvTB(t, o) }

func newStreamEnvTB(t testing.TB, o EventStreamOptions) *streamEnv {
	t.Helper()
	return streamEnvOf(t, newEnvTB(t), o)
}

// streamEnvOf serves an event stream of e's bridge session.
func streamEnvOf(t testing.TB, e *env, o EventStreamOptions) *streamEnv {
	t.Helper()
	es, err := NewEventStream(e.bridge, o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(es)
	t.Cleanup(srv.Close)
	t.Cleanup(es.Shutdown) // before Close, which waits for the streams
	return &streamEnv{env: e, es: es, srv: srv}
}

// sseEvent is one event read from a stream; comment is set for a comment
// line (a heartbeat) instead.
type sseEvent struct {
	id, event, data string
	comment         bool
}

// sseClient reads a stream.
type sseClient struct {
	t    testing.TB
	resp *http.Response
	r    *bufio.Reader
}

// streamReadLimit bounds a test's reads from a stream: a missing event
// fails the test instead of hanging it.
const streamReadLimit = 30 * time.Second

// open opens a stream with the query q and returns once its head came
// (the stream is subscribed then).
func (se *streamEnv) open(q string) *sseClient { return se.openAs(q, "") }

// openAs is open with an Authorization header (none when "").
func (se *streamEnv) openAs(q, authorization string) *sseClient {
	se.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), streamReadLimit)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, se.srv.URL+"/?"+q, nil)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		se.t.Fatal(err)
	}
	se.t.Cleanup(func() { resp.Body.Close(); cancel() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		b, _ := io.ReadAll(resp.Body)
		se.t.Fatalf("open %s: %d %s %s", q, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return &sseClient{t: se.t, resp: resp, r: bufio.NewReader(resp.Body)}
}

// next returns the next event, skipping heartbeats.
func (c *sseClient) next() sseEvent {
	c.t.Helper()
	for {
		ev, err := readSSE(c.r)
		if err != nil {
			c.t.Fatalf("reading the stream: %v", err)
		}
		if !ev.comment {
			return ev
		}
	}
}

// readSSE reads one event or comment as the HTML standard's parser does
// (for the fields the service writes).
func readSSE(r *bufio.Reader) (sseEvent, error) {
	var ev sseEvent
	seen := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && seen:
			return ev, nil
		case line == "":
		case strings.HasPrefix(line, ":"):
			return sseEvent{comment: true}, nil
		default:
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch name {
			case "id":
				ev.id = value
			case "event":
				ev.event = value
			case "data":
				ev.data = value
			default:
				return ev, fmt.Errorf("unexpected field %q", line)
			}
			seen = true
		}
	}
}

// publish publishes from the backend, acknowledged, and returns the
// publication ID.
func (e *env) publish(topic wamp.URI, args wamp.List, kwargs wamp.Object, opts wamp.Dict) wamp.ID {
	e.t.Helper()
	d := wamp.Dict{wamp.OptAcknowledge: true}
	for k, v := range opts {
		d[k] = v
	}
	id, err := e.backend.Publish(context.Background(), topic, args, kwargs, d)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}
