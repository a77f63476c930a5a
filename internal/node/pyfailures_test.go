package node

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/config"
)

// TestCrossbarFailureExamples runs nodes shaped on crossbar-examples'
// containers/failures (testdata/failures: the same configurations, with
// Unix sockets for port 8080, and components written to do what the
// examples' do) and checks that each behaves as under Crossbar 21.3.1:
// the start fails (the node exits) with a clear error, or the node runs
// on once the component has stopped, or it shuts itself down. A router
// component that leaves within its onJoin (failure5, and failure6 after
// a sleep) fails the start, as Crossbar's in-process session does; a
// container component that does so has started (failure5, 6). Where
// 21.3.1 hangs at start (a constructor that raises in a container, a
// WebSocket handshake refused), the start fails instead. The configs name
// no interpreter: "python3" is looked up on PATH, where /usr/bin comes
// first for the test.
func TestCrossbarFailureExamples(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	tests := []struct {
		dir string
		// startErr: the start fails with this. Otherwise the component
		// stops with stopped in its log line, and the node keeps running
		// (shuts false) or shuts itself down without an error.
		startErr, stopped string
		shuts             bool
	}{
		{dir: "container/working", stopped: `reason="its session left (wamp.close.goodbye_and_out)" failed=false next="container shuts down"`, shuts: true},
		{dir: "container/failure1", startErr: `workers[1].components[0].classname: node: Python class "myapp.MySession" (/usr/bin/python3): cannot import module 'myapp': ModuleNotFoundError: No module named 'myapp'`},
		{dir: "container/failure2", startErr: `workers[1].components[0].classname: node: Python class "myapp.MySession2" (/usr/bin/python3): module 'myapp' has no class 'MySession2'`},
		{dir: "container/failure3", startErr: `workers[1].components[0]: node: Python class "myapp.MySession" (/usr/bin/python3): MySession(config) raised: ZeroDivisionError: division by zero`},
		{dir: "container/failure4", stopped: `reason="fatal error in the component: While firing onJoin: division by zero" failed=true next=nothing`},
		{dir: "container/failure5", stopped: `reason="its session left (wamp.close.goodbye_and_out)" failed=false next=nothing`},
		{dir: "container/failure6", stopped: `reason="its session left (wamp.close.goodbye_and_out)" failed=false next=nothing`},
		{dir: "container/failure7", startErr: `workers[1].components[0].transport: node: cannot connect to unix:web-8090.sock: `},
		{dir: "container/failure8", startErr: `workers[1].components[0].transport: node: cannot connect to unix:web.sock: websocket: dial ws://127.0.0.1:8080: unexpected HTTP response status`},
		{dir: "router/working", stopped: `reason="its session left (wamp.close.goodbye_and_out)" failed=false next=nothing`},
		{dir: "router/failure1", startErr: `workers[0].components[0].classname: node: Python class "myapp.MySession" (/usr/bin/python3): cannot import module 'myapp': ModuleNotFoundError`},
		{dir: "router/failure2", startErr: `workers[0].components[0].classname: node: Python class "myapp.MySession2" (/usr/bin/python3): module 'myapp' has no class 'MySession2'`},
		{dir: "router/failure3", startErr: `workers[0].components[0]: node: Python class "myapp.MySession" (/usr/bin/python3): MySession(config) raised: ZeroDivisionError`},
		{dir: "router/failure4", stopped: `reason="fatal error in the component: While firing onJoin: division by zero" failed=true next=nothing`},
		{dir: "router/failure5", startErr: `workers[0].components[0]: node: Python class "myapp.MySession" (/usr/bin/python3): the session left before it was ready`},
		{dir: "router/failure6", startErr: `workers[0].components[0]: node: Python class "myapp.MySession" (/usr/bin/python3): the session left before it was ready`},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			project := t.TempDir()
			if err := os.CopyFS(project, os.DirFS(filepath.Join("testdata", "failures", tt.dir))); err != nil {
				t.Fatal(err)
			}
			cbdir := filepath.Join(project, ".crossbar")
			cfg, _, err := config.Load(filepath.Join(cbdir, "config.json"))
			if err != nil {
				t.Fatal(err)
			}
			log, logger := newWatchedLogger(t)
			n, err := New(cfg, Options{Dir: cbdir, Logger: logger})
			if err != nil {
				t.Fatal(err)
			}
			if tt.startErr != "" {
				if err := n.Start(testCtx(t)); err == nil || !strings.Contains(err.Error(), tt.startErr) {
					t.Fatalf("Start: %v\nwant %s", err, tt.startErr)
				}
				return
			}
			startNode(t, n)
			log.wait(t, 1, `msg="component stopped"`, tt.stopped)
			if tt.shuts {
				shutsDown(t, n, false)
				return
			}
			stillRunning(t, n)
		})
	}
}
