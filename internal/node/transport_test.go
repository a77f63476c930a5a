package node

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/junction-wamp/junction/client"
)

func TestRawSocket(t *testing.T) {
	dir := t.TempDir()
	// A stale socket file (nothing listens on it) is replaced.
	stale, err := net.Listen("unix", filepath.Join(dir, "stale.sock"))
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()

	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [
			{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}},
			{"type": "rawsocket", "endpoint": {"type": "unix", "path": "junction.sock"}},
			{"type": "rawsocket", "endpoint": {"type": "unix", "path": "stale.sock"}}
		]}]}`, nil)
	n := start(t, cfg, dir)
	tcp := mustRaw(t, "tcp", address(t, n, web0), client.Config{Realm: "realm1"})
	sock := address(t, n, "workers[0].transports[1]")
	if sock != filepath.Join(dir, "junction.sock") {
		t.Errorf("unix listener at %q, want it in the node directory", sock)
	}
	unix := mustRaw(t, "unix", sock, client.Config{Realm: "realm1"})
	stl := mustRaw(t, "unix", address(t, n, "workers[0].transports[2]"), client.Config{Realm: "realm1"})
	echo(t, tcp, "com.example.echo")
	callEcho(t, unix, "com.example.echo")
	callEcho(t, stl, "com.example.echo")
}

func TestUnixSocketInUse(t *testing.T) {
	dir := t.TempDir()
	live, err := net.Listen("unix", filepath.Join(dir, "live.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if err := os.WriteFile(filepath.Join(dir, "file.sock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"live.sock", "file.sock"} {
		t.Run(name, func(t *testing.T) {
			cfg := parse(t, fmt.Sprintf(`{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
				"transports": [{"type": "rawsocket", "endpoint": {"type": "unix", "path": %q}}]}]}`, name), nil)
			n, err := New(cfg, Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			err = n.Start(testCtx(t))
			if err == nil {
				n.Stop(testCtx(t))
				t.Fatal("Start succeeded on a socket path in use")
			}
			if _, serr := os.Stat(filepath.Join(dir, name)); serr != nil {
				t.Errorf("%s was removed: %v", name, serr)
			}
		})
	}
}
