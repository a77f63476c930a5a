package websocket

import (
	"errors"
	"fmt"
	"github.com/junction-wamp/junction/internal/transport/transporttest"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/wamp"
	"github.com/junction-wamp/junction/internal/wamp/codec"
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
		name    string
		allowed []string
		offered []string // one header line each; nil sends none
		upgrade bool
		status  int
		chosen  string
	}{
		{"first supported wins", nil, []string{"wamp.2.json, wamp.2.cbor"}, true, 101, "wamp.2.json"},
		{"unknown skipped", nil, []string{"mqtt, wamp.2.msgpack.batched", "wamp.2.json"}, true, 101, "wamp.2.msgpack.batched"},
		{"second header line", nil, []string{"mqtt", "wamp.2.cbor"}, true, 101, "wamp.2.cbor"},
		{"allowed list filters", []string{"wamp.2.json"}, []string{"wamp.2.msgpack, wamp.2.json"}, true, 101, "wamp.2.json"},
		{"none supported", nil, []string{"mqtt, wamp.1.json"}, true, 400, ""},
		{"not allowed", []string{"wamp.2.json"}, []string{"wamp.2.cbor"}, true, 400, ""},
		{"no subprotocol", nil, nil, true, 400, ""},
		{"plain GET", nil, nil, false, 426, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			echo := &echoAttacher{Errs: make(chan error, 1)}
			url := "http" + strings.TrimPrefix(serve(t, Options{Attacher: echo, Subprotocols: tt.allowed}), "ws")
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

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "anything", true},
		{"a*c", "abc", true},
		{"a*c", "ac", true},
		{"a*c", "ab", false},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "acb", false},
		{"ab*ba", "aba", false},
		{"exact", "exact", true},
		{"exact", "exactly", false},
	}
	for _, tt := range tests {
		if got := matchGlob(tt.pattern, tt.s); got != tt.want {
			t.Errorf("matchGlob(%q, %q) = %v", tt.pattern, tt.s, got)
		}
	}
}

func TestNewHandlerErrors(t *testing.T) {
	if _, err := NewHandler(Options{}); err == nil {
		t.Error("nil Attacher accepted")
	}
	if _, err := NewHandler(Options{Attacher: newAttacher(), Subprotocols: []string{"wamp.2.xml"}}); err == nil {
		t.Error("unknown subprotocol accepted")
	}
}
