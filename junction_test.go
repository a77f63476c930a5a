package junction_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction"
	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// socketsJSON is a node with a realm whose role "anonymous" may do
// everything, a web transport with a WebSocket path and a RawSocket
// transport, both on port 0.
const socketsJSON = `{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1", "roles": [
		{"name": "anonymous", "permissions": [{"uri": "", "match": "prefix",
			"allow": {"call": true, "register": true, "publish": true, "subscribe": true},
			"disclose": {"caller": true, "publisher": true}}]},
		{"name": "reader", "permissions": [{"uri": "", "match": "prefix", "allow": {"subscribe": true}}]}]}],
	"transports": [
		{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {"ws": {"type": "websocket"}}},
		{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}]}]}`

// start starts cfg and stops it at the end of the test.
func start(t *testing.T, cfg *junction.Config) *junction.Node {
	t.Helper()
	n, err := junction.Start(t.Context(), cfg, junction.Options{})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return n
}

// startSockets starts socketsJSON.
func startSockets(t *testing.T) *junction.Node {
	t.Helper()
	cfg, err := junction.ParseConfig([]byte(socketsJSON))
	if err != nil {
		t.Fatal(err)
	}
	return start(t, cfg)
}

// address returns the address of n's transport at path.
func address(t *testing.T, n *junction.Node, path string) string {
	t.Helper()
	for _, l := range n.Listeners() {
		if l.Transport == path {
			return l.Address
		}
	}
	t.Fatalf("no listener %s in %+v", path, n.Listeners())
	return ""
}

// joinWS joins realm1 over WebSocket (JSON) on n's web transport.
func joinWS(t *testing.T, n *junction.Node) *client.Session {
	t.Helper()
	url := "ws://" + address(t, n, "workers[0].transports[0]") + "/ws"
	p, err := websocket.Dial(t.Context(), url, websocket.DialOptions{Subprotocols: []string{"wamp.2.json"}})
	if err != nil {
		t.Fatal(err)
	}
	return joined(t)(client.Join(t.Context(), p, client.Config{Realm: "realm1"}))
}

// joinRaw joins realm1 over RawSocket (MessagePack) on n's second transport.
func joinRaw(t *testing.T, n *junction.Node) *client.Session {
	t.Helper()
	p, err := rawsocket.Dial(t.Context(), "tcp", address(t, n, "workers[0].transports[1]"), rawsocket.DialOptions{Serializer: "msgpack"})
	if err != nil {
		t.Fatal(err)
	}
	return joined(t)(client.Join(t.Context(), p, client.Config{Realm: "realm1"}))
}

// joinLocal joins realm1 in process.
func joinLocal(t *testing.T, n *junction.Node) *client.Session {
	t.Helper()
	return joined(t)(n.Join(t.Context(), client.Config{Realm: "realm1"}))
}

// joined returns a function that fails t on a join error and closes the
// session at the end of the test.
func joined(t *testing.T) func(*client.Session, error) *client.Session {
	return func(s *client.Session, err error) *client.Session {
		t.Helper()
		if err != nil {
			t.Fatalf("join: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}

func TestStartAndStop(t *testing.T) {
	cfg, err := junction.ParseConfig([]byte(socketsJSON))
	if err != nil {
		t.Fatal(err)
	}
	n, err := junction.Start(t.Context(), cfg, junction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ls := n.Listeners()
	if len(ls) != 2 || ls[0].Type != "web" || ls[1].Type != "rawsocket" || ls[0].Network != "tcp4" {
		t.Fatalf("listeners %+v", ls)
	}
	for _, l := range ls {
		if _, port, _ := net.SplitHostPort(l.Address); port == "0" || port == "" {
			t.Errorf("%s listens on %q: no real port", l.Transport, l.Address)
		}
	}
	ws := joinWS(t, n)
	select {
	case <-n.Done():
		t.Fatal("Done closed while the node runs")
	default:
	}
	if err := n.Stop(t.Context()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	<-n.Done()
	if err := n.Err(); err != nil {
		t.Errorf("Err after Stop: %v", err)
	}
	<-ws.Done()
	if err := n.Stop(t.Context()); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if _, err := n.Join(t.Context(), client.Config{Realm: "realm1"}); !errors.Is(err, junction.ErrNotRunning) {
		t.Errorf("Join after Stop: %v, want ErrNotRunning", err)
	}
}

func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cfg := junction.RouterConfig()
	ran := make(chan error, 1)
	go func() { ran <- junction.Run(ctx, cfg, junction.Options{}) }()
	cancel()
	if err := <-ran; err != nil {
		t.Errorf("Run: %v", err)
	}
}

func TestRunStartFails(t *testing.T) {
	cfg, err := junction.ParseConfig([]byte(`{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "port": 0},
		"paths": {"/": {"type": "static", "directory": "missing"}}, "options": {}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	// A missing static directory is only a warning; a TLS key that does
	// not load is a build problem.
	cfg, err = junction.ParseConfig([]byte(`{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
		"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "port": 0,
		"tls": {"key": "server.key", "certificate": "server.crt"}}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	err = junction.Run(t.Context(), cfg, junction.Options{Dir: t.TempDir()})
	var ce *junction.ConfigError
	if !errors.As(err, &ce) || ce.Problems[0].Path == "" {
		t.Fatalf("Run: %v, want a *ConfigError at a path", err)
	}
}

// TestStartRelativeDir: the relative paths of a loaded file are resolved
// against its folder, unless Options.Dir says otherwise.
func TestStartRelativeDir(t *testing.T) {
	dir := t.TempDir()
	text := `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
		"transports": [{"type": "rawsocket", "endpoint": {"type": "unix", "path": "node.sock"}}]}]}`
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := junction.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	for _, tt := range []struct{ dir, want string }{{"", dir}, {other, other}} {
		n, err := junction.Start(t.Context(), cfg, junction.Options{Dir: tt.dir})
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Listeners()[0].Address; got != filepath.Join(tt.want, "node.sock") {
			t.Errorf("Dir %q: socket at %s, want in %s", tt.dir, got, tt.want)
		}
		if err := n.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestJoinRules: what an in-process session may join as.
func TestJoinRules(t *testing.T) {
	n := startSockets(t)
	tests := []struct {
		name, role string
		cfg        client.Config
		want       wamp.URI // the refusal; "" to join
		wantRole   string
	}{
		{"anonymous", "", client.Config{Realm: "realm1"}, "", "anonymous"},
		{"a role of the realm", "reader", client.Config{Realm: "realm1"}, "", "reader"},
		{"trusted", "trusted", client.Config{Realm: "realm1"}, "", "trusted"},
		{"authid", "", client.Config{Realm: "realm1", AuthID: "backend-1"}, "", "anonymous"},
		{"no such role", "admin", client.Config{Realm: "realm1"}, wamp.ErrNoSuchRole, ""},
		{"no such realm", "", client.Config{Realm: "realm2"}, wamp.ErrNoSuchRealm, ""},
		{"credentials", "", client.Config{Realm: "realm1", Auth: []client.Authenticator{client.Ticket("secret")}}, wamp.ErrNoAuthMethod, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := n.JoinAs(t.Context(), tt.role, tt.cfg)
			if tt.want != "" {
				var re *wamp.RequestError
				if !errors.As(err, &re) || re.URI != tt.want {
					t.Fatalf("join: %v, want %s", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			d := s.Details()
			if d["authrole"] != tt.wantRole || d["authmethod"] != "anonymous" {
				t.Errorf("details %v, want authrole %s", d, tt.wantRole)
			}
			if id, _ := d["authid"].(string); tt.cfg.AuthID != "" && id != tt.cfg.AuthID || id == "" {
				t.Errorf("authid %q, want %q", id, tt.cfg.AuthID)
			}
		})
	}
}

// TestJoinPermissions: an in-process session has its role's permissions.
func TestJoinPermissions(t *testing.T) {
	n := startSockets(t)
	s := joined(t)(n.JoinAs(t.Context(), "reader", client.Config{Realm: "realm1"}))
	_, err := s.Publish(t.Context(), "com.example.topic", nil, nil, wamp.Dict{"acknowledge": true})
	var re *wamp.RequestError
	if !errors.As(err, &re) || re.URI != wamp.ErrNotAuthorized {
		t.Errorf("publish as reader: %v, want %s", err, wamp.ErrNotAuthorized)
	}
}

// TestJoinDuringStop: joins racing the node's stop either join and are
// ended by it, or fail; none hangs.
func TestJoinDuringStop(t *testing.T) {
	n, err := junction.Start(t.Context(), junction.RouterConfig(), junction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const joiners = 8
	errs := make(chan error, joiners)
	for range joiners {
		go func() {
			for {
				s, err := n.Join(t.Context(), client.Config{Realm: "realm1"})
				if err != nil {
					errs <- err
					return
				}
				<-s.Done() // the stop ends it, or Close below
				s.Close()
			}
		}()
	}
	if err := n.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	for range joiners {
		if err := <-errs; err == nil {
			t.Error("a join failed without an error")
		}
	}
}

// TestConnect: Connect's in-process session joins again when the router
// kills it, with its registration renewed, and its Client closes when
// the node stops, without logging a failed redial; Connect fails as Join
// does for a realm the node lacks, and after the stop.
func TestConnect(t *testing.T) {
	n := startSockets(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var log logtest.Log
	cfg := client.Config{Realm: "realm1", AuthID: "backend", Logger: log.Logger(slog.LevelInfo)}
	joins := make(chan *client.Session, 4)
	c, err := n.Connect(t.Context(), "", cfg, client.ReconnectOptions{MinBackoff: time.Millisecond,
		OnJoin: func(s *client.Session) { joins <- s }})
	if err != nil {
		t.Fatal(err)
	}
	echo := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: inv.Args}, nil
	}
	if _, err := c.Register(t.Context(), "com.example.echo", echo, nil); err != nil {
		t.Fatal(err)
	}
	first := next(ctx, t, joins)
	if d := first.Details(); d["authid"] != "backend" || d["authrole"] != "anonymous" {
		t.Errorf("details %v, want authid backend, authrole anonymous", d)
	}

	admin := joined(t)(n.JoinAs(t.Context(), "trusted", client.Config{Realm: "realm1"}))
	if _, err := admin.Call(t.Context(), "wamp.session.kill", wamp.List{first.ID()}, nil); err != nil {
		t.Fatal(err)
	}
	if second := next(ctx, t, joins); second.ID() == first.ID() {
		t.Fatal("OnJoin again with the killed session")
	}
	caller := joinWS(t, n)
	if r, err := caller.Call(t.Context(), "com.example.echo", wamp.List{"hi"}, nil); err != nil || len(r.Args) != 1 || r.Args[0] != "hi" {
		t.Errorf("call after the rejoin: %v, %v", r, err)
	}

	var re *wamp.RequestError
	if _, err := n.Connect(t.Context(), "", client.Config{Realm: "realm2"}, client.ReconnectOptions{}); !errors.As(err, &re) || re.URI != wamp.ErrNoSuchRealm {
		t.Errorf("Connect to a realm the node lacks: %v, want %s", err, wamp.ErrNoSuchRealm)
	}

	if err := n.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("the Client did not close when the node stopped")
	}
	if lines := log.Lines(t, "client: connect failed"); len(lines) != 0 {
		t.Errorf("redials after the stop: %v", lines)
	}
	if _, err := n.Connect(t.Context(), "", cfg, client.ReconnectOptions{}); !errors.Is(err, junction.ErrNotRunning) {
		t.Errorf("Connect after Stop: %v, want ErrNotRunning", err)
	}
}

// TestReload: Reload changes a web path live and reports it, reports a
// change that needs a restart and leaves it, refuses a configuration
// with problems (changing nothing), and fails after Stop.
func TestReload(t *testing.T) {
	doc := func(value, port string) *junction.Config {
		cfg, err := junction.ParseConfig([]byte(`{"version": 2, "workers": [{"type": "router",
			"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
			"transports": [
				{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
					"paths": {"info": {"type": "json", "value": "` + value + `"}}},
				{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": ` + port + `}}]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	n := start(t, doc("one", "0"))
	get := func() string {
		t.Helper()
		resp, err := http.Get("http://" + address(t, n, "workers[0].transports[0]") + "/info")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return strings.TrimSpace(string(b))
	}

	rep, err := n.Reload(t.Context(), doc("two", "0"))
	if err != nil || len(rep.Applied) != 1 || rep.Applied[0].Path != "workers[0].transports[0].paths" || len(rep.Restart) != 0 {
		t.Fatalf("Reload: %+v, %v; want the paths applied", rep, err)
	}
	if got := get(); got != `"two"` {
		t.Errorf("GET /info after the reload: %s", got)
	}

	port := strings.TrimPrefix(address(t, n, "workers[0].transports[1]"), "127.0.0.1:")
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	other := strings.TrimPrefix(free.Addr().String(), "127.0.0.1:")
	free.Close()
	if rep, err = n.Reload(t.Context(), doc("two", other)); err != nil || len(rep.Restart) != 1 || rep.Restart[0].Path != "workers[0].transports[1]" {
		t.Errorf("Reload of an endpoint: %+v, %v; want it in Restart", rep, err)
	}
	if got := address(t, n, "workers[0].transports[1]"); !strings.HasSuffix(got, ":"+port) {
		t.Errorf("RawSocket moved to %s by a change that needs a restart", got)
	}

	if _, err := n.Reload(t.Context(), nil); err == nil {
		t.Error("Reload with no configuration: no error")
	}
	missing := doc("three", "0")
	var ce *junction.ConfigError
	if _, err := n.Reload(t.Context(), tlsMissing(t)); !errors.As(err, &ce) || len(ce.Problems) == 0 {
		t.Errorf("Reload with a TLS file that does not load: %v, want a *ConfigError", err)
	}
	if got := get(); got != `"two"` {
		t.Errorf("GET /info after refused reloads: %s", got)
	}

	if err := n.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Reload(t.Context(), missing); !errors.Is(err, junction.ErrNotRunning) {
		t.Errorf("Reload after Stop: %v, want ErrNotRunning", err)
	}
}

// tlsMissing is a configuration whose web transport's TLS files do not
// exist: it parses, and the node cannot build it.
func tlsMissing(t *testing.T) *junction.Config {
	t.Helper()
	cfg, err := junction.ParseConfig([]byte(`{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0,
			"tls": {"key": "/nonexistent/server.key", "certificate": "/nonexistent/server.crt"}}, "paths": {"/": {"type": "nodeinfo"}}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
