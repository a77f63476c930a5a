package websocket

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/junction-wamp/junction/internal/transport/outbox"

	"github.com/junction-wamp/junction/internal/wamp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// session is one attached server peer, handed to the test. Attach returns
// (closing the peer) once the test closes release; ended is closed then.
type session struct {
	peer    wamp.Peer
	release chan struct{}
	ended   chan struct{}
}

// testAttacher hands every attached peer to the test.
type testAttacher struct{ sessions chan *session }

func newAttacher() *testAttacher { return &testAttacher{sessions: make(chan *session, 16)} }

func (a *testAttacher) Attach(p wamp.Peer) {
	s := &session{peer: p, release: make(chan struct{}), ended: make(chan struct{})}
	a.sessions <- s
	<-s.release
	p.Close()
	close(s.ended)
}

// echoAttacher sends every received message back until Recv fails, then
// reports Recv's error.
type echoAttacher struct{ errs chan error }

func (a *echoAttacher) Attach(p wamp.Peer) {
	defer p.Close()
	for {
		m, err := p.Recv()
		if err != nil {
			a.errs <- err
			return
		}
		if err := p.Send(m); err != nil {
			a.errs <- err
			return
		}
	}
}

// serve starts a test server for opts and returns its ws:// URL.
func serve(t testing.TB, opts Options) string {
	t.Helper()
	h, err := NewHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

func dial(t testing.TB, url string, opts DialOptions) wamp.Peer {
	t.Helper()
	p, err := Dial(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// sampleMessages covers several message layouts, with values every codec
// decodes back to the same Go values.
func sampleMessages() []wamp.Message {
	return []wamp.Message{
		&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"roles": map[string]any{"caller": map[string]any{}}}},
		&wamp.Call{Request: 1, Options: wamp.Dict{}, Procedure: "com.example.add", Args: wamp.List{"a", true, "ü€"}},
		&wamp.Publish{Request: 2, Options: wamp.Dict{"acknowledge": true}, Topic: "com.example.t", Args: wamp.List{}, Kwargs: wamp.Dict{"k": "v"}},
		&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal},
	}
}

func outboxLimits(messages, bytes int) outbox.Options {
	return outbox.Options{MaxMessages: messages, MaxBytes: bytes}
}
