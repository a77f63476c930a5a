package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// exitApp is a container's Python component (Debian's python3-autobahn
// and python3-twisted): Leaves leaves once joined; Crashes makes its
// runner exit with status 3.
const exitApp = `import os
from twisted.internet import reactor
from autobahn.twisted.wamp import ApplicationSession


class Leaves(ApplicationSession):
    def onJoin(self, details):
        reactor.callLater(0, self.leave)


class Crashes(ApplicationSession):
    def onJoin(self, details):
        reactor.callLater(0.5, os._exit, 3)  # once its start is answered
`

// exitConfig is a router on a Unix socket and a container whose one
// component of class connects to it; the container shuts down when its
// last component stops.
func exitConfig(class string) string {
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"}}]},
		{"type": "container", "options": {"python": "/usr/bin/python3", "pythonpath": [".."], "shutdown": "shutdown-on-last-component-stopped"},
		 "components": [{"type": "class", "classname": "exitapp.` + class + `", "realm": "realm1",
			"transport": {"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"}}}]}]}`
}

// TestStartEndsWithWorker: "start" returns by itself when a worker's exit
// stops the node (the controller's default trigger,
// shutdown_on_worker_exit): status 0 when the worker ended cleanly (its
// container shut down), 1 when it failed (its runner exited with status
// 3), with a log line that says why.
func TestStartEndsWithWorker(t *testing.T) {
	tests := []struct {
		class string
		code  int
		log   string
	}{
		{"Leaves", 0, `msg="worker exited; the node shuts down" worker=workers[1] why="the container shut down (shutdown-on-last-component-stopped): no component is left" trigger=shutdown_on_worker_exit`},
		{"Crashes", 1, `msg="worker exited; the node shuts down" worker=workers[1] why="its Python runner exited" err="process workers[1]: exit status 3" trigger=shutdown_on_worker_exit`},
	}
	for _, tt := range tests {
		t.Run(tt.class, func(t *testing.T) {
			project := t.TempDir()
			writeFile(t, project, "exitapp.py", exitApp)
			cbdir := filepath.Join(project, ".crossbar")
			if err := os.Mkdir(cbdir, 0o755); err != nil {
				t.Fatal(err)
			}
			file := writeFile(t, cbdir, "config.json", exitConfig(tt.class))
			var errOut syncWriter
			done := make(chan int, 1)
			go func() {
				done <- run(t.Context(), nil, []string{"start", "--config", file}, &bytes.Buffer{}, &errOut, noEnv)
			}()
			select {
			case code := <-done:
				if code != tt.code {
					t.Errorf("start: exit %d, want %d\n%s", code, tt.code, errOut.String())
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("start did not end by itself:\n%s", errOut.String())
			}
			if !strings.Contains(errOut.String(), tt.log) {
				t.Errorf("the log lacks %s:\n%s", tt.log, errOut.String())
			}
		})
	}
}

// syncWriter is a log sink for concurrent use.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
