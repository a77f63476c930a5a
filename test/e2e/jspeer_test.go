package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/test/internal/nodeproc"
)

// jsPeer is js/peer.js, the autobahn-js callee and subscriber, running.
type jsPeer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr syncBuffer
	lines  chan jsLine // stdout, parsed; closed at EOF
}

// jsLine is one JSON line of peer.js.
type jsLine struct {
	Ready   bool     `json:"ready"`
	OK      *bool    `json:"ok"`
	Error   string   `json:"error"`
	Goodbye string   `json:"goodbye"`
	Invoked string   `json:"invoked"`
	Event   *jsEvent `json:"event"`
	Raw     string   `json:"-"`
}

// jsEvent is an event as peer.js prints it.
type jsEvent struct {
	Topic       string         `json:"topic"`
	Publication json.Number    `json:"publication"`
	Args        []any          `json:"args"`
	Kwargs      map[string]any `json:"kwargs"`
}

// startJSPeer starts peer.js against url with prefix and serializer, and
// waits until it has registered and subscribed. When the test ends its
// stdin is closed: it leaves with GOODBYE and must exit 0.
func startJSPeer(t *testing.T, url, prefix, serializer string) *jsPeer {
	t.Helper()
	harness.RequireDeps(t)
	p := &jsPeer{lines: make(chan jsLine, 64)}
	p.cmd = exec.Command("node", "js/peer.js", "--url", url, "--realm", realm, "--prefix", prefix,
		"--serializer", serializer, "--timeout", "120")
	p.cmd.Stderr = &p.stderr
	p.cmd.WaitDelay = 5 * time.Second
	nodeproc.DieWithParent(p.cmd)
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatalf("peer.js: %v", err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("peer.js: %v", err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("peer.js: start: %v", err)
	}
	go p.read(out)
	t.Cleanup(func() { p.stop(t) })
	p.waitReady(t)
	return p
}

func (p *jsPeer) read(out io.Reader) {
	defer close(p.lines)
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l jsLine
		_ = json.Unmarshal(sc.Bytes(), &l)
		l.Raw = sc.Text()
		p.lines <- l
	}
	_, _ = io.Copy(io.Discard, out)
}

func (p *jsPeer) waitReady(t *testing.T) {
	t.Helper()
	l, ok := p.next(t, 30*time.Second)
	if !ok || !l.Ready {
		t.Fatalf("peer.js: not ready: %q\nstderr:\n%s", l.Raw, p.stderr.String())
	}
}

// next returns the next stdout line, false at EOF or after d. Lines are
// read by one test at a time (see TestBridge).
func (p *jsPeer) next(t *testing.T, d time.Duration) (jsLine, bool) {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		return l, ok
	case <-time.After(d):
		t.Errorf("peer.js: no line within %s", d)
		return jsLine{}, false
	}
}

// stop closes stdin (peer.js leaves) and checks it exits 0 with a GOODBYE
// from the router; it is killed after a bound.
func (p *jsPeer) stop(t *testing.T) {
	_ = p.stdin.Close()
	var last []string
	timeout := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case l, ok := <-p.lines:
			if !ok {
				done = true
				break
			}
			last = append(last, l.Raw)
		case <-timeout:
			_ = p.cmd.Process.Kill()
			done = true
		}
	}
	err := p.cmd.Wait()
	var final jsLine
	if len(last) > 0 {
		_ = json.Unmarshal([]byte(last[len(last)-1]), &final)
	}
	if err != nil || final.OK == nil || !*final.OK || final.Goodbye != "wamp.close.goodbye_and_out" {
		t.Errorf("peer.js: did not leave cleanly with the router's GOODBYE (%v); last lines %q\nstderr:\n%s",
			err, last, p.stderr.String())
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use: exec writes the
// child's stderr into it while a test may read it for a report.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
