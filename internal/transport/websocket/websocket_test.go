package websocket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"

	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/internal/transport/transporttest"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

func TestRoundTripEveryCodec(t *testing.T) {
	for _, proto := range codec.Subprotocols() {
		t.Run(proto, func(t *testing.T) {
			echo := &echoAttacher{Errs: make(chan error, 1)}
			p := dial(t, serve(t, Options{Attacher: echo}), DialOptions{Subprotocols: []string{proto}})
			c, _, _ := codec.Lookup(proto)
			if info := p.Info(); info.Transport != "websocket" || info.Serializer != c.Name() || info.RemoteAddr == "" {
				t.Fatalf("Info = %+v", info)
			}
			transporttest.CheckRoundTrip(t, p, echo)
		})
	}
}

func TestSharedMessage(t *testing.T) {
	a := newAttacher()
	url := serve(t, Options{Attacher: a})
	clients := []wamp.Peer{
		dial(t, url, DialOptions{Subprotocols: []string{"wamp.2.json"}}),
		dial(t, url, DialOptions{Subprotocols: []string{"wamp.2.msgpack.batched"}}),
	}
	ev := wamp.NewShared(&wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{}, Args: wamp.List{"x"}})
	for range clients {
		s := <-a.Sessions
		if err := s.Peer.Send(ev); err != nil {
			t.Fatal(err)
		}
		defer close(s.Release)
	}
	for _, c := range clients {
		got, err := c.Recv()
		if err == nil {
			got, err = wamp.Decoded(got)
		}
		if err != nil || !reflect.DeepEqual(got, ev.Message) {
			t.Fatalf("Recv = %#v, %v", got, err)
		}
	}
}

func TestCloseFromServer(t *testing.T) {
	a := newAttacher()
	p := dial(t, serve(t, Options{Attacher: a}), DialOptions{})
	s := <-a.Sessions
	s.Peer.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
	close(s.Release) // Attach closes the peer and returns
	<-s.Ended
	if m, err := p.Recv(); err != nil || m.Type() != wamp.TypeGoodbye {
		t.Fatalf("Recv = %v, %v; want the GOODBYE queued before Close", m, err)
	}
	if _, err := p.Recv(); err != io.EOF {
		t.Fatalf("Recv after server Close = %v, want EOF", err)
	}
	if err := p.Send(&wamp.Goodbye{}); !errors.Is(err, wamp.ErrClosed) {
		t.Fatalf("Send after close = %v, want ErrClosed", err)
	}
	if _, err := s.Peer.Recv(); err != io.EOF {
		t.Fatalf("server Recv after own Close = %v, want EOF", err)
	}
}

func TestConcurrentSend(t *testing.T) {
	a := newAttacher()
	p := dial(t, serve(t, Options{Attacher: a}), DialOptions{Subprotocols: []string{"wamp.2.msgpack"}})
	s := <-a.Sessions
	defer close(s.Release)
	transporttest.CheckConcurrentSend(t, p, s.Peer)
}

func TestNegotiation(t *testing.T) {
	tests := []struct {
		name       string
		allowed    []string
		assumeJSON bool
		offered    []string // one header line each; nil sends none
		upgrade    bool
		status     int
		chosen     string
	}{
		{"first supported wins", nil, false, []string{"wamp.2.json, wamp.2.cbor"}, true, 101, "wamp.2.json"},
		{"unknown skipped", nil, false, []string{"mqtt, wamp.2.msgpack.batched", "wamp.2.json"}, true, 101, "wamp.2.msgpack.batched"},
		{"second header line", nil, false, []string{"mqtt", "wamp.2.cbor"}, true, 101, "wamp.2.cbor"},
		{"allowed list filters", []string{"wamp.2.json"}, false, []string{"wamp.2.msgpack, wamp.2.json"}, true, 101, "wamp.2.json"},
		{"none supported", nil, false, []string{"mqtt, wamp.1.json"}, true, 400, ""},
		{"not allowed", []string{"wamp.2.json"}, false, []string{"wamp.2.cbor"}, true, 400, ""},
		{"no subprotocol", nil, false, nil, true, 400, ""},
		{"plain GET", nil, false, nil, false, 426, ""},
		{"assume JSON: none offered", nil, true, nil, true, 101, ""},
		{"assume JSON: none supported", nil, true, []string{"mqtt"}, true, 101, ""},
		{"assume JSON: a supported one still wins", nil, true, []string{"mqtt, wamp.2.cbor"}, true, 101, "wamp.2.cbor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			echo := &echoAttacher{Errs: make(chan error, 1)}
			var log logtest.Log
			url := "http" + strings.TrimPrefix(serve(t, Options{Attacher: echo, Subprotocols: tt.allowed, AssumeJSON: tt.assumeJSON,
				Logger: log.Logger(slog.LevelDebug)}), "ws")
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			if tt.upgrade {
				setUpgradeHeaders(req.Header)
			}
			for _, o := range tt.offered {
				req.Header.Add("Sec-WebSocket-Protocol", o)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body []byte
			if resp.StatusCode != http.StatusSwitchingProtocols {
				body, _ = io.ReadAll(io.LimitReader(resp.Body, 512))
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, body, tt.status)
			}
			if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != tt.chosen {
				t.Fatalf("chosen %q, want %q", got, tt.chosen)
			}
			if tt.status == 101 {
				<-echo.Errs // the session ended when the client went away
			} else if len(body) == 0 {
				t.Fatal("refusal without a text body")
			}
			refused := log.Lines(t, "websocket: upgrade refused")
			if tt.status == 101 && len(refused) != 0 || tt.status != 101 && (len(refused) != 1 ||
				refused[0]["level"] != "DEBUG" || refused[0]["status"] != float64(tt.status) ||
				refused[0]["reason"] != strings.TrimSpace(string(body)) || refused[0]["remote"] == "") {
				t.Errorf("refusals logged: %v", refused)
			}
		})
	}
}

func setUpgradeHeaders(h http.Header) {
	h.Set("Connection", "Upgrade")
	h.Set("Upgrade", "websocket")
	h.Set("Sec-WebSocket-Version", "13")
	h.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
}

func TestOrigin(t *testing.T) {
	allowed := []string{"https://*.example.com", "http://localhost:8080"}
	tests := []struct {
		origin string
		ok     bool
	}{
		{"", true},
		{"https://app.example.com", true},
		{"HTTPS://App.Example.COM", true},
		{"https://a.b.example.com", true},
		{"http://localhost:8080", true},
		{"https://example.com", false},
		{"https://evil.com", false},
		{"https://app.example.com.evil.com", false},
		{"http://localhost:8081", false},
	}
	echo := &echoAttacher{Errs: make(chan error, len(tests))}
	url := serve(t, Options{Attacher: echo, AllowedOrigins: allowed})
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.origin), func(t *testing.T) {
			h := http.Header{}
			if tt.origin != "" {
				h.Set("Origin", tt.origin)
			}
			p, err := Dial(t.Context(), url, DialOptions{Header: h})
			if (err == nil) != tt.ok {
				t.Fatalf("Dial error %v, want ok=%v", err, tt.ok)
			}
			if err == nil {
				p.Close()
				<-echo.Errs
			} else if !strings.Contains(err.Error(), "403") {
				t.Fatalf("refusal %v, want status 403", err)
			}
		})
	}
}

func TestNewHandlerErrors(t *testing.T) {
	if _, err := NewHandler(Options{}); err == nil {
		t.Error("nil Attacher accepted")
	}
	if _, err := NewHandler(Options{Attacher: newAttacher(), AssumeJSON: true, Subprotocols: []string{"wamp.2.cbor"}}); err == nil {
		t.Error("AssumeJSON accepted without wamp.2.json")
	}
	if _, err := NewHandler(Options{Attacher: newAttacher(), Subprotocols: []string{"wamp.2.xml"}}); err == nil {
		t.Error("unknown subprotocol accepted")
	}
}

// TestAssumeJSON: a client that offers no subprotocol speaks wamp.2.json
// when the handler assumes JSON (Crossbar's require_websocket_subprotocol
// false): a JSON text frame comes back as JSON.
func TestAssumeJSON(t *testing.T) {
	echo := newEcho()
	url := serve(t, Options{Attacher: echo, AssumeJSON: true})
	conn, _, hs, err := ws.Dial(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if hs.Protocol != "" {
		t.Errorf("handshake chose %q, want no subprotocol", hs.Protocol)
	}
	const hello = `[1,"realm1",{"roles":{"caller":{}}}]`
	if err := wsutil.WriteClientText(conn, []byte(hello)); err != nil {
		t.Fatal(err)
	}
	got, op, err := wsutil.ReadServerData(conn)
	if err != nil {
		t.Fatal(err)
	}
	if op != ws.OpText || string(got) != hello {
		t.Errorf("echo %v %s, want a text frame %s", op, got, hello)
	}
	conn.Close()
	<-echo.Errs // the session ended with the connection
}

// TestKeepHeaders: with KeepHeaders, a session's PeerInfo has its upgrade
// request's headers, names in lower case and a repeated one's values
// joined as autobahn joins them; without, none.
func TestKeepHeaders(t *testing.T) {
	for _, keep := range []bool{false, true} {
		a := newAttacher()
		h := http.Header{"X-Forwarded-For": {"203.0.113.5", "10.0.0.1"}, "User-Agent": {"test"}}
		dial(t, serve(t, Options{Attacher: a, KeepHeaders: keep}), DialOptions{Header: h})
		s := <-a.Sessions
		got := s.Peer.Info().HTTPHeaders
		close(s.Release)
		switch {
		case !keep && got != nil:
			t.Errorf("headers kept without KeepHeaders: %v", got)
		case keep && (got["x-forwarded-for"] != "203.0.113.5, 10.0.0.1" || got["user-agent"] != "test" || got["upgrade"] != "websocket"):
			t.Errorf("headers = %v", got)
		}
	}
}
