package client_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/longpoll"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

const realm = "realm1"

// testRouter is a router served over every transport Dial knows, on
// loopback and Unix sockets, with a callee of "test.echo".
type testRouter struct {
	urls  map[string]string // scheme -> URL
	roots *x509.CertPool    // trusts the TLS listeners' certificate
	cert  tls.Certificate   // the TLS listeners' certificate
}

func newTestRouter(t *testing.T, auths ...auth.Authenticator) *testRouter {
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: realm}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	g := r.Gate(auths...)
	tr := &testRouter{urls: map[string]string{}}
	tr.serveWebSocket(t, g)
	tr.serveRawSocket(t, g)
	return tr
}

func (tr *testRouter) serveWebSocket(t *testing.T, g *router.Gate) {
	ws, err := websocket.NewHandler(websocket.Options{Attacher: g})
	if err != nil {
		t.Fatal(err)
	}
	lp, err := longpoll.NewHandler(longpoll.Options{Attacher: g})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lp.Shutdown)
	h := http.NewServeMux() // WebSocket at /ws, long-poll below /lp
	h.Handle("/ws", ws)
	h.Handle("/lp/", http.StripPrefix("/lp", lp))
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)
	tr.urls["ws"] = "ws" + strings.TrimPrefix(plain.URL, "http") + "/ws"
	tr.urls["http"] = plain.URL + "/lp"
	secure := httptest.NewUnstartedServer(h)
	secure.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	secure.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshakes of TestDialTLSVerifiesRouter
	secure.StartTLS()
	t.Cleanup(secure.Close)
	tr.urls["wss"] = "wss" + strings.TrimPrefix(secure.URL, "https") + "/ws"
	tr.urls["https"] = secure.URL + "/lp"
	tr.roots = x509.NewCertPool()
	tr.roots.AddCert(secure.Certificate())
	tr.cert = secure.TLS.Certificates[0]
	sock := filepath.Join(t.TempDir(), "ws.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	tr.urls["ws+unix"] = "ws+unix://" + sock + ":/ws"
}

func (tr *testRouter) serveRawSocket(t *testing.T, g *router.Gate) {
	srv, err := rawsocket.NewServer(rawsocket.Options{Attacher: g})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	listen := func(network, addr string) net.Listener {
		l, err := net.Listen(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	tcp := listen("tcp", "127.0.0.1:0")
	go srv.Serve(tcp)
	tr.urls["rs"] = "rs://" + tcp.Addr().String()
	tr.urls["tcp"] = "tcp://" + tcp.Addr().String()
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{tr.cert}, ClientAuth: tls.RequestClientCert}
	secure := tls.NewListener(listen("tcp", "127.0.0.1:0"), tlsConfig)
	go srv.Serve(secure)
	tr.urls["rss"] = "rss://" + secure.Addr().String()
	tr.urls["tls"] = "tls://" + secure.Addr().String()
	sock := filepath.Join(t.TempDir(), "rs.sock")
	go srv.Serve(listen("unix", sock))
	tr.urls["unix"] = "unix://" + sock
}

// ctx returns a context that ends with the test, bounded so that nothing
// hangs.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// echo registers test.echo on a session joined over url.
func echo(t *testing.T, url string, opts client.DialOptions) {
	s := join(t, url, opts, client.Config{Realm: realm})
	_, err := s.Register(ctx(t), "test.echo", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: inv.Args}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
}

func join(t *testing.T, url string, opts client.DialOptions, cfg client.Config) *client.Session {
	t.Helper()
	p, err := client.Dial(ctx(t), url, opts)
	if err != nil {
		t.Fatalf("Dial(%s): %v", url, err)
	}
	s, err := client.Join(ctx(t), p, cfg)
	if err != nil {
		t.Fatalf("Join over %s: %v", url, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestDialSchemesAndSerializers joins over every scheme with every
// serializer (and none) and calls a procedure through the router.
func TestDialSchemesAndSerializers(t *testing.T) {
	tr := newTestRouter(t)
	tlsConfig := &tls.Config{RootCAs: tr.roots}
	echo(t, tr.urls["ws"], client.DialOptions{})
	schemes := []struct {
		scheme    string
		transport string
		tls       bool
		// serializer chosen when DialOptions.Serializer is empty
		defaultSerializer string
	}{
		{"ws", "websocket", false, "cbor"},
		{"wss", "websocket", true, "cbor"},
		{"ws+unix", "websocket", false, "cbor"},
		{"rs", "rawsocket", false, "msgpack"},
		{"tcp", "rawsocket", false, "msgpack"},
		{"rss", "rawsocket", true, "msgpack"},
		{"tls", "rawsocket", true, "msgpack"},
		{"unix", "rawsocket", false, "msgpack"},
		{"http", "longpoll", false, "json"},
		{"https", "longpoll", true, "json"},
	}
	for _, sc := range schemes {
		for _, ser := range []string{"", "json", "msgpack", "cbor", "ubjson"} {
			t.Run(sc.scheme+"/"+ser, func(t *testing.T) {
				p, err := client.Dial(ctx(t), tr.urls[sc.scheme], client.DialOptions{Serializer: ser, TLSConfig: tlsConfig})
				if err != nil {
					t.Fatal(err)
				}
				want := ser
				if want == "" {
					want = sc.defaultSerializer
				}
				if info := p.Info(); info.Transport != sc.transport || info.Serializer != want || info.TLS != sc.tls {
					t.Errorf("Info %+v, want transport %s, serializer %s, TLS %v", info, sc.transport, want, sc.tls)
				}
				s, err := client.Join(ctx(t), p, client.Config{Realm: realm})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				res, err := s.Call(ctx(t), "test.echo", wamp.List{"hello", int64(42)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Args) != 2 || res.Args[0] != "hello" || res.Args[1] != int64(42) {
					t.Errorf("result %v", res.Args)
				}
			})
		}
	}
}

// TestDialErrors: a URL or option that can never work is an error
// wrapping ErrDialOptions that says what is wrong, from Dial and from
// NewDialer's Dialer alike.
func TestDialErrors(t *testing.T) {
	tests := []struct {
		url  string
		opts client.DialOptions
		want string
	}{
		{"ftp://localhost:8080/ws", client.DialOptions{}, `unknown scheme "ftp"`},
		{"http:///lp", client.DialOptions{}, "no host"},
		{"localhost:8080", client.DialOptions{}, `unknown scheme "localhost"`},
		{"/ws", client.DialOptions{}, "no scheme"},
		{"ws://", client.DialOptions{}, "no host"},
		{"ws://host/ws", client.DialOptions{Serializer: "xml"}, `unknown serializer "xml"`},
		{"rs://host:1", client.DialOptions{Serializer: "json.batched"}, `unknown serializer "json.batched"`},
		{"rs://host", client.DialOptions{}, "want rs://host:port"},
		{"tls://:8080", client.DialOptions{}, "want tls://host:port"},
		{"rs://host:1/path", client.DialOptions{}, "RawSocket has no paths"},
		{"unix://host/sock", client.DialOptions{}, `host "host" in a unix URL`},
		{"unix://", client.DialOptions{}, "no socket path"},
		{"ws+unix://", client.DialOptions{}, "no socket path"},
		{"ws+unix://h/s.sock", client.DialOptions{}, `host "h" in a ws+unix URL`},
		{"ws://host/ws", client.DialOptions{MaxMessageSize: -1}, "MaxMessageSize -1"},
		{"ws://host/ws", client.DialOptions{PingInterval: -time.Second}, "must be >= 0"},
		{"ws://host:port:x/", client.DialOptions{}, "invalid port"},
	}
	for _, tt := range tests {
		for name, dial := range map[string]client.Dialer{
			"Dial":      func(ctx context.Context) (wamp.Peer, error) { return client.Dial(ctx, tt.url, tt.opts) },
			"NewDialer": client.NewDialer(tt.url, tt.opts),
		} {
			p, err := dial(ctx(t))
			if err == nil {
				p.Close()
				t.Errorf("%s(%q): no error", name, tt.url)
				continue
			}
			if !errors.Is(err, client.ErrDialOptions) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s(%q): %v, want ErrDialOptions and %q", name, tt.url, err, tt.want)
			}
		}
	}
}

// TestDialRefused: a router that is not there is a dial error, not an
// ErrDialOptions (Connect retries it).
func TestDialRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	for _, url := range []string{"ws://" + addr + "/ws", "rs://" + addr, "unix://" + filepath.Join(t.TempDir(), "none.sock")} {
		if _, err := client.Dial(ctx(t), url, client.DialOptions{}); err == nil || errors.Is(err, client.ErrDialOptions) {
			t.Errorf("Dial(%s): %v, want a connection error", url, err)
		}
	}
}

// TestDialTLSVerifiesRouter: without the router's CA the TLS handshake
// fails, for WebSocket and RawSocket alike.
func TestDialTLSVerifiesRouter(t *testing.T) {
	tr := newTestRouter(t)
	for _, scheme := range []string{"wss", "rss"} {
		_, err := client.Dial(ctx(t), tr.urls[scheme], client.DialOptions{})
		if _, ok := errors.AsType[*tls.CertificateVerificationError](err); !ok {
			t.Errorf("%s: %v, want a certificate verification error", scheme, err)
		}
	}
}

// TestDialMaxMessageSize: a message longer than DialOptions.MaxMessageSize
// is not delivered: over WebSocket the client closes the connection and
// the call whose result is too long fails, while a short one passes.
// (Over RawSocket the limit is announced in the handshake: the router
// does not send such a message, see TestTooLongForReceiver.)
func TestDialMaxMessageSize(t *testing.T) {
	tr := newTestRouter(t)
	echo(t, tr.urls["ws"], client.DialOptions{})
	s := join(t, tr.urls["ws"], client.DialOptions{MaxMessageSize: 1024}, client.Config{Realm: realm})
	if _, err := s.Call(ctx(t), "test.echo", wamp.List{"short"}, nil); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Call(ctx(t), "test.echo", wamp.List{strings.Repeat("x", 4096)}, nil); err == nil {
		t.Errorf("a %d-byte result passed a 1024-byte limit", len(res.Args[0].(string)))
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "too big") {
		t.Errorf("session: %v, want ended for a message too big", err)
	}
}

// TestDialHeader: DialOptions.Header goes with the WebSocket opening
// handshake, over TCP and a Unix socket.
func TestDialHeader(t *testing.T) {
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: realm}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	h, err := websocket.NewHandler(websocket.Options{Attacher: r})
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan string, 2)
	record := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		seen <- req.Host + " " + req.URL.Path + " " + req.Header.Get("X-Token")
		h.ServeHTTP(w, req)
	})
	srv := httptest.NewServer(record)
	t.Cleanup(srv.Close)
	sock := filepath.Join(t.TempDir(), "ws.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	unix := &http.Server{Handler: record}
	go unix.Serve(l)
	t.Cleanup(func() { unix.Close() })
	opts := client.DialOptions{Header: http.Header{"X-Token": {"t1"}}}
	tests := []struct{ url, want string }{
		{"ws" + strings.TrimPrefix(srv.URL, "http") + "/ws", strings.TrimPrefix(srv.URL, "http://") + " /ws t1"},
		{"ws+unix://" + sock + ":/a/b", "localhost /a/b t1"},
		{"ws+unix://" + sock, "localhost / t1"},
	}
	for _, tt := range tests {
		join(t, tt.url, opts, client.Config{Realm: realm})
		if got := recvOne(t, seen); got != tt.want {
			t.Errorf("%s: handshake %q, want %q", tt.url, got, tt.want)
		}
	}
}

func recvOne(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-ctx(t).Done():
		t.Fatal("nothing received")
		return ""
	}
}
