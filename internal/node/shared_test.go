package node

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
)

// TestSharedWorkers: identical router workers on a shared port run as
// one router on one listener.
func TestSharedWorkers(t *testing.T) {
	worker := `{"type": "router", "options": {"cpu_affinity": [%d]},
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 8080, "shared": true}}]}`
	doc := `{"version": 2, "workers": [` + strings.Replace(worker, "%d", "0", 1) + "," + strings.Replace(worker, "%d", "1", 1) + `]}`
	cfg := zeroPorts(parse(t, doc, nil)) // merged at port 8080, then served on any free port
	var logs syncBuffer
	n := startWith(t, cfg, Options{Dir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if ls := n.Listeners(); len(ls) != 1 || ls[0].Transport != web0 {
		t.Fatalf("listeners %v, want workers[0]'s only", ls)
	}
	if !strings.Contains(logs.String(), "worker runs as one with an identical worker on its shared port") {
		t.Errorf("no log of the merged worker:\n%s", logs.String())
	}
	addr := address(t, n, web0)
	a := mustRaw(t, "tcp", addr, client.Config{Realm: "realm1"})
	echo(t, a, "com.example.echo")
	callEcho(t, mustRaw(t, "tcp", addr, client.Config{Realm: "realm1"}), "com.example.echo")
}
