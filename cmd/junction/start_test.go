package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// quietStop has the node's own sessions (a Caller's, a router
// component's) beside a client's: none of them may log at info when the
// node stops.
const quietStop = `{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
	"transports": [
		{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}},
		{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"paths": {"call": {"type": "caller", "realm": "realm1", "role": "anonymous"}}}],
	"components": [{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1",
		"extra": {"procedure": "com.example.api", "baseurl": "http://127.0.0.1:1/"}}]}]}`

// TestCleanStopIsQuiet: after "node started", a clean stop logs
// "shutting down" and "node stopped" at info and nothing else at info or
// above, though the node's own sessions and a client's end.
func TestCleanStopIsQuiet(t *testing.T) {
	file := writeFile(t, t.TempDir(), "config.json", quietStop)
	ctx, cancel := context.WithCancel(t.Context())
	r, w := newPipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, nil, []string{"start", "--config", file, "--logformat", "json"}, &bytes.Buffer{}, w, noEnv)
		w.Close()
	}()
	lines := logLines(r)
	addr := listeningAddr(t, lines)
	waitLine(t, lines, containing(`"msg":"node started"`))
	s := joinBinary(t, addr)
	cancel()
	var msgs []string
	for l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		msgs = append(msgs, rec["level"].(string)+" "+rec["msg"].(string))
	}
	if code := <-done; code != 0 {
		t.Errorf("start: exit %d", code)
	}
	<-s.Done()
	want := []string{"INFO shutting down", "INFO node stopped"}
	if len(msgs) != len(want) || msgs[0] != want[0] || msgs[1] != want[1] {
		t.Errorf("the stop logged %q, want %q", msgs, want)
	}
}
