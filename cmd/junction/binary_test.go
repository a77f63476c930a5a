package main

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// newPipe is an in-memory pipe for a log stream.
func newPipe() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }

var addressRE = regexp.MustCompile(`"msg":"listening".*"address":"([^"]+)"|msg=listening .*address=(\S+)`)

// logLines sends the lines of r on the returned channel, which closes
// at the end of r (after the last read of r).
func logLines(r io.Reader) <-chan string {
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		for sc := bufio.NewScanner(r); sc.Scan(); {
			lines <- sc.Text()
		}
	}()
	return lines
}

// listeningAddr waits for the first "listening" line and returns its
// address.
func listeningAddr(t *testing.T, lines <-chan string) string {
	t.Helper()
	m := addressRE.FindStringSubmatch(waitLine(t, lines, addressRE.MatchString))
	return m[1] + m[2]
}

// startBinary builds the junction binary and starts it with goodConfig;
// it returns the process, its log lines (the channel closes at the end of
// the log) and the address of its listener. The process is killed at the
// end of the test if it still runs.
func startBinary(t *testing.T) (*exec.Cmd, <-chan string, string) {
	t.Helper()
	return startBinaryWith(t, goodConfig)
}

// startBinaryWith is startBinary with the config doc.
func startBinaryWith(t *testing.T, doc string) (*exec.Cmd, <-chan string, string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "junction")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cfg := writeFile(t, dir, "config.json", doc)
	cmd := exec.Command(bin, "start", "--config", cfg)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := logLines(stderr)
	t.Cleanup(func() {
		cmd.Process.Kill()
		for range lines { // until the log ends, so that Wait may close it
		}
		cmd.Wait()
	})
	return cmd, lines, listeningAddr(t, lines)
}

// containing matches the log lines that contain s.
func containing(s string) func(string) bool {
	return func(l string) bool { return strings.Contains(l, s) }
}

// waitLine returns the first log line that match accepts; it fails the
// test when the log ends first.
func waitLine(t *testing.T, lines <-chan string, match func(string) bool) string {
	t.Helper()
	for l := range lines {
		if match(l) {
			return l
		}
	}
	t.Fatal("the log ended (the process exited) before the line waited for")
	return ""
}

// joinBinary joins realm1 on the binary's WebSocket listener at addr.
func joinBinary(t *testing.T, addr string) *client.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	p, err := websocket.Dial(ctx, "ws://"+addr+"/any/path", websocket.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Join(ctx, p, client.Config{Realm: "realm1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// terminate sends SIGTERM and checks that the binary exits with status 0
// within the stop bound, its session s told GOODBYE system_shutdown.
func terminate(t *testing.T, cmd *exec.Cmd, lines <-chan string, s *client.Session) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLine(t, lines, containing(`msg="node stopped"`))
	exited := make(chan error, 1)
	go func() {
		for range lines { // the rest of the log, so that Wait may close it
		}
		exited <- cmd.Wait()
	}()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("junction exited with %v, want status 0", err)
		}
	case <-time.After(stopTimeout + 5*time.Second):
		t.Fatal("junction did not exit within the stop bound after SIGTERM")
	}
	<-s.Done()
	if !strings.Contains(s.Err().Error(), "system_shutdown") {
		t.Errorf("session ended with %v, want GOODBYE system_shutdown", s.Err())
	}
}

func TestBinarySIGTERM(t *testing.T) {
	cmd, lines, addr := startBinary(t)
	s := joinBinary(t, addr)
	terminate(t, cmd, lines, s)
}

// TestBinarySIGHUP is F12 (docs/SECURITY.md): a SIGHUP (a closed terminal or ssh
// session) must not kill the node. It reloads the configuration: the node
// still serves, sessions opened before it included, and a later SIGTERM
// stops it cleanly.
func TestBinarySIGHUP(t *testing.T) {
	cmd, lines, addr := startBinary(t)
	before := joinBinary(t, addr)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitLine(t, lines, containing(`level=INFO msg="configuration reloaded"`))
	after := joinBinary(t, addr)
	if _, err := after.Call(t.Context(), "wamp.session.count", nil, nil); err != nil {
		t.Errorf("call after SIGHUP: %v", err)
	}
	select {
	case <-before.Done():
		t.Fatalf("the session joined before SIGHUP ended: %v", before.Err())
	default:
	}
	after.Close()
	terminate(t, cmd, lines, before)
}

// TestBinarySecondSignal: a second SIGTERM during the graceful stop stops
// the node at once. A guest worker that ignores SIGTERM would hold the
// graceful stop for the whole stop bound; the second signal kills it and
// the node exits with status 1 (the stop did not complete).
func TestBinarySecondSignal(t *testing.T) {
	guest := `{"type": "guest", "executable": "/bin/sh", "arguments": ["-c", "trap '' TERM; echo ignoring-term; exec sleep 600"]}`
	cmd, lines, _ := startBinaryWith(t, strings.Replace(goodConfig, `]}]}`, `]}, `+guest+`]}`, 1))
	waitLine(t, lines, containing(`msg=ignoring-term`)) // the output, not the "guest started" line naming it
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLine(t, lines, containing(`msg="shutting down"`))
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLine(t, lines, containing(`level=WARN msg="second signal: stopping at once"`))
	for range lines { // the rest of the log, so that Wait may close it
	}
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("junction exited with %v, want status 1", err)
	}
}
