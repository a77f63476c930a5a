package e2e_test

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// curl runs the real curl with args and returns the answer's body and
// status (written by -w after a newline).
func curl(t *testing.T, args ...string) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args = append([]string{"-sS", "-w", "\n%{http_code}"}, args...)
	cmd := exec.CommandContext(ctx, "curl", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("curl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	i := bytes.LastIndexByte(out, '\n')
	status, err := strconv.Atoi(string(out[i+1:]))
	if i < 0 || err != nil {
		t.Fatalf("curl %s: output %q has no status", strings.Join(args, " "), out)
	}
	return response{status: status, body: out[:i]}
}

// testCurl runs the requests of Crossbar's documentation with curl itself:
// a call and a publish, unsigned, to the Go and autobahn-js peers.
func testCurl(t *testing.T, env *bridgeEnv) {
	harness.RequireDeps(t)
	for _, p := range peerPrefixes {
		t.Run("call/"+p, func(t *testing.T) {
			t.Parallel()
			r := curl(t, "-H", "Content-Type: application/json",
				"-d", `{"procedure": "`+p+`.echo", "args": [1, 2], "kwargs": {"a": "b"}}`, env.base+"/call")
			checkAnswer(t, r, 200, `{"args": [1, 2], "kwargs": {"a": "b"}}`)
		})
	}
	t.Run("publish/com.e2e.go", func(t *testing.T) {
		events := env.gp.subscribe(t, "com.e2e.go.curl")
		r := curl(t, "-H", "Content-Type: application/json",
			"-d", `{"topic": "com.e2e.go.curl", "args": ["Hello, world"]}`, env.base+"/publish")
		id := publicationID(t, r)
		if ev := nextEvent(t, events); uint64(ev.Publication) != id || len(ev.Args) != 1 || ev.Args[0] != "Hello, world" {
			t.Errorf("event %d %v, want %d [Hello, world]", ev.Publication, ev.Args, id)
		}
	})
}
