package websocket

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/junction-wamp/junction/internal/transport/outbox"
	"github.com/junction-wamp/junction/internal/transport/transporttest"
	"github.com/junction-wamp/junction/wamp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The shared doubles of package transporttest, under this package's names.
type (
	session      = transporttest.Session
	echoAttacher = transporttest.Echo
)

var (
	newAttacher    = transporttest.NewAttacher
	newEcho        = transporttest.NewEcho
	sampleMessages = transporttest.SampleMessages
)

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

func outboxLimits(messages, bytes int) outbox.Options {
	return outbox.Options{MaxMessages: messages, MaxBytes: bytes}
}
