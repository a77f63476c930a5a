//go:build unix

package pyrunner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeRunner is the runner's end of a channel, played by the test.
type fakeRunner struct {
	t    *testing.T
	conn *net.UnixConn
	r    *bufio.Reader
}

// newFake makes a channel whose runner is played by the test, logging to
// a buffer.
func newFake(t *testing.T) (*Channel, *fakeRunner, *lockedBuffer) {
	t.Helper()
	var logs lockedBuffer
	c, theirs, err := NewChannel(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	fc, err := net.FileConn(theirs)
	theirs.Close()
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRunner{t: t, conn: fc.(*net.UnixConn)}
	t.Cleanup(func() {
		f.conn.Close()
		c.Close()
	})
	return c, f, &logs
}

// say sends a control message as the runner.
func (f *fakeRunner) say(m map[string]any) {
	f.t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.conn.Write(append(b, '\n')); err != nil {
		f.t.Fatal(err)
	}
}

// call reads the node's next call and the descriptor that came with it
// (nil for none), as the runner's socket end.
func (f *fakeRunner) call() (map[string]any, *net.UnixConn) {
	f.t.Helper()
	buf := make([]byte, 64<<10)
	oob := make([]byte, syscall.CmsgSpace(4))
	n, oobn, _, _, err := f.conn.ReadMsgUnix(buf, oob)
	if err != nil {
		f.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(buf[:n]), &m); err != nil {
		f.t.Fatalf("call %q: %v", buf[:n], err)
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return m, nil
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		f.t.Fatalf("rights: %v %v", fds, err)
	}
	file := os.NewFile(uintptr(fds[0]), "session")
	defer file.Close()
	sc, err := net.FileConn(file)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { sc.Close() })
	return m, sc.(*net.UnixConn)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestHello(t *testing.T) {
	c, f, _ := newFake(t)
	f.say(map[string]any{"type": "hello", "pid": 42, "python": "3.11.2", "executable": "/usr/bin/python3", "twisted": "22.4.0", "autobahn": "22.7.1"})
	h, err := c.Hello(testCtx(t))
	want := Hello{PID: 42, Python: "3.11.2", Executable: "/usr/bin/python3", Twisted: "22.4.0", Autobahn: "22.7.1"}
	if err != nil || h != want {
		t.Fatalf("Hello = %+v, %v; want %+v", h, err, want)
	}
}

func TestHelloFatal(t *testing.T) {
	c, f, _ := newFake(t)
	f.say(map[string]any{"type": "fatal", "message": "cannot import Twisted: ModuleNotFoundError: No module named 'twisted'"})
	_, err := c.Hello(testCtx(t))
	var fe *FatalError
	if !errors.As(err, &fe) || !strings.Contains(fe.Message, "No module named 'twisted'") {
		t.Fatalf("Hello: %v, want the fatal error", err)
	}
}

func TestHelloRunnerEnded(t *testing.T) {
	c, f, _ := newFake(t)
	f.conn.Close()
	if _, err := c.Hello(testCtx(t)); !errors.Is(err, ErrEnded) {
		t.Fatalf("Hello: %v, want ErrEnded", err)
	}
	<-c.Done()
	if _, err := c.Start(Component{ID: "c"}); !errors.Is(err, ErrEnded) {
		t.Fatalf("Start after the end: %v, want ErrEnded", err)
	}
}

// TestStartRun: a start carries its arguments and one end of a connected
// socket pair; the answer makes the run ready; fatal and closed events
// end it with their outcome.
func TestStartRun(t *testing.T) {
	c, f, _ := newFake(t)
	r, err := c.Start(Component{ID: "workers[0].components[1]", Classname: "app.Backend", Realm: "realm1",
		Extra: map[string]any{"n": 1}, Router: true})
	if err != nil {
		t.Fatal(err)
	}
	m, sock := f.call()
	args, _ := m["args"].(map[string]any)
	if m["type"] != "call" || m["op"] != "start" || args["classname"] != "app.Backend" || args["realm"] != "realm1" ||
		args["router"] != true || args["component"] != "workers[0].components[1]" || args["extra"].(map[string]any)["n"] != 1.0 {
		t.Fatalf("call %v", m)
	}
	if sock == nil {
		t.Fatal("no socket came with the start")
	}
	if _, err := sock.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if _, err := io.ReadFull(r.Conn, got); err != nil || string(got) != "ping" {
		t.Fatalf("the run's Conn read %q, %v: not the other end of the socket pair", got, err)
	}
	f.say(map[string]any{"type": "result", "id": m["id"], "result": map[string]any{"session": 7, "authid": "a", "authrole": "anonymous"}})
	j, err := r.Ready(testCtx(t))
	if err != nil || j != (Joined{Session: 7, AuthID: "a", AuthRole: "anonymous"}) {
		t.Fatalf("Ready = %+v, %v", j, err)
	}
	run := m["args"].(map[string]any)["run"]
	f.say(map[string]any{"type": "event", "event": "fatal", "component": "workers[0].components[1]", "run": run, "fatal": "While firing onJoin: boom"})
	f.say(map[string]any{"type": "event", "event": "left", "component": "workers[0].components[1]", "run": run, "reason": "wamp.close.transport_lost"})
	f.say(map[string]any{"type": "event", "event": "closed", "component": "workers[0].components[1]", "run": run})
	<-r.Done()
	want := Outcome{Fatal: "While firing onJoin: boom", Left: "wamp.close.transport_lost"}
	if o := r.Outcome(); o != want {
		t.Errorf("outcome %+v, want %+v", o, want)
	}
	if _, err := r.Conn.Read(got); err == nil {
		t.Error("the run's Conn is still open after the run")
	}
}

func TestStartFails(t *testing.T) {
	c, f, _ := newFake(t)
	r, err := c.Start(Component{ID: "c", Classname: "app.Nope", Realm: "realm1"})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := f.call()
	f.say(map[string]any{"type": "error", "id": m["id"], "error": map[string]any{"stage": "import",
		"message": "module 'app' has no class 'Nope'", "traceback": nil}})
	_, err = r.Ready(testCtx(t))
	var se *StartError
	if !errors.As(err, &se) || se.Stage != "import" || se.Message != "module 'app' has no class 'Nope'" {
		t.Fatalf("Ready: %v, want the import error", err)
	}
	<-r.Done()
	c.mu.Lock()
	left := len(c.runs) + len(c.pending)
	c.mu.Unlock()
	if left != 0 {
		t.Errorf("%d runs or calls kept after a failed start", left)
	}
}

// TestRunnerEnds: the runner's end closing ends a pending start with
// ErrEnded and a running run as RunnerEnded.
func TestRunnerEnds(t *testing.T) {
	c, f, _ := newFake(t)
	running, _ := c.Start(Component{ID: "a"})
	m, _ := f.call()
	f.say(map[string]any{"type": "result", "id": m["id"], "result": map[string]any{"session": 1}})
	if _, err := running.Ready(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	pending, _ := c.Start(Component{ID: "b"})
	f.call()
	f.conn.Close()
	if _, err := pending.Ready(testCtx(t)); !errors.Is(err, ErrEnded) {
		t.Errorf("pending start: %v, want ErrEnded", err)
	}
	<-running.Done()
	if o := running.Outcome(); !o.RunnerEnded {
		t.Errorf("outcome %+v, want RunnerEnded", o)
	}
	<-c.Done()
}

func TestLogLines(t *testing.T) {
	c, f, logs := newFake(t)
	f.say(map[string]any{"type": "log", "level": "warn", "message": "careful", "component": "workers[0].components[0]"})
	f.say(map[string]any{"type": "log", "level": "error", "message": "Fatal error in component", "traceback": "Traceback: ..."})
	f.say(map[string]any{"type": "nonsense"})
	f.conn.Close()
	<-c.Done()
	out := logs.String()
	for _, want := range []string{`level=WARN msg=careful component=workers[0].components[0]`,
		`level=ERROR msg="Fatal error in component" traceback="Traceback: ..."`, `unknown control message" type=nonsense`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

func TestArgs(t *testing.T) {
	a := Args(Settings{Worker: "workers[1]", CBDir: "/n/.crossbar", StartDir: "/n", Level: "debug"})
	want := []string{"-u", "-", `{"worker":"workers[1]","cbdir":"/n/.crossbar","startdir":"/n","level":"debug"}`}
	if strings.Join(a, " ") != strings.Join(want, " ") {
		t.Errorf("Args = %q, want %q", a, want)
	}
	if !bytes.Contains(Source, []byte("def main():")) {
		t.Error("Source is not the runner")
	}
}
