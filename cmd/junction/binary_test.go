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

	"github.com/junction-wamp/junction/internal/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// newPipe is an in-memory pipe for a log stream.
func newPipe() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }

var addressRE = regexp.MustCompile(`"msg":"listening".*"address":"([^"]+)"|msg=listening .*address=(\S+)`)

// waitListening reads log lines until the first "listening" one and
// returns its address; the rest of the stream is drained in the
// background.
func waitListening(t *testing.T, r io.Reader) string {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := addressRE.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, r)
			return m[1] + m[2]
		}
	}
	t.Fatalf("no listening line in the log: %v", sc.Err())
	return ""
}

func TestBinarySIGTERM(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "junction")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cfg := writeFile(t, dir, "config.json", goodConfig)
	cmd := exec.Command(bin, "start", "--config", cfg)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	addr := waitListening(t, stderr)

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
	defer s.Close()

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
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
