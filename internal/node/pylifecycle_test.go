package node

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// noRestartDelay makes container restarts immediate for the test.
func noRestartDelay(t *testing.T) {
	old := restartDelay
	restartDelay = func(int) time.Duration { return 0 }
	t.Cleanup(func() { restartDelay = old })
}

// joins subscribes s to test.joined, which each pyapp.Echo publishes with
// its name once it has joined (and registered).
func joins(t *testing.T, s *client.Session) <-chan joinEvent {
	t.Helper()
	ch := make(chan joinEvent, 16)
	_, err := s.Subscribe(testCtx(t), "test.joined", func(ev *client.Event) {
		var j joinEvent
		if len(ev.Args) > 0 {
			j.name, _ = ev.Args[0].(string)
		}
		if len(ev.Args) > 2 {
			j.session = idArg(ev.Args[2])
		}
		ch <- j
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// joinEvent is a component's announcement that it joined: its name and
// session ID (0 when it did not say).
type joinEvent struct {
	name    string
	session wamp.ID
}

// nextJoin waits for a join of want announced on ch by a session other
// than before (the session that was there before the restart): its own
// join may reach the router after the test subscribed, as it is relayed.
func nextJoin(t *testing.T, ch <-chan joinEvent, want string, before wamp.ID) {
	t.Helper()
	for {
		select {
		case j := <-ch:
			if j.name != want {
				t.Fatalf("%s joined, want %s", j.name, want)
			}
			if j.session != before {
				return
			}
		case <-testCtx(t).Done():
			t.Fatalf("%s did not join (again)", want)
		}
	}
}

// sessionOf asks the Echo component named name for its session ID.
func sessionOf(t *testing.T, s *client.Session, name string) wamp.ID {
	t.Helper()
	res, err := s.Call(testCtx(t), wamp.URI(name+".info"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := wamp.AsDict(res.Args[0])
	id := idArg(info["session"])
	if id == 0 {
		t.Fatalf("%s.info: no session in %v", name, info)
	}
	return id
}

// idArg reads a session ID from a decoded payload (0 when it is none).
func idArg(v any) wamp.ID {
	n, ok := wamp.AsInt(v)
	if !ok || n <= 0 {
		return 0
	}
	return wamp.ID(n)
}

// act makes the component named name leave ("leave") or fail ("fail": an
// exception escapes its event handler, Crossbar's fatal error).
func act(t *testing.T, s *client.Session, name, action string) {
	t.Helper()
	var err error
	if action == "fail" {
		_, err = s.Publish(testCtx(t), wamp.URI(name+".fail"), nil, nil, wamp.Dict{"acknowledge": true})
	} else {
		_, err = s.Call(testCtx(t), wamp.URI(name+".leave"), nil, nil)
	}
	if err != nil {
		t.Fatalf("%s %s: %v", action, name, err)
	}
}

// stillRunning checks that the node has not asked to stop.
func stillRunning(t *testing.T, n *Node) {
	t.Helper()
	select {
	case <-n.ShutdownRequested():
		t.Fatalf("the node asked to stop: %v", n.ShutdownErr())
	default:
	}
}

// shutsDown waits until the node asks to stop, and checks its error.
func shutsDown(t *testing.T, n *Node, wantErr bool) {
	t.Helper()
	select {
	case <-n.ShutdownRequested():
	case <-testCtx(t).Done():
		t.Fatal("the node did not ask to stop")
	}
	if err := n.ShutdownErr(); (err != nil) != wantErr {
		t.Fatalf("ShutdownErr = %v, want an error: %v", err, wantErr)
	}
}

// TestPyRestartModes: a container's restart mode acts on its components'
// sessions: restart-always restarts one that left or failed,
// restart-on-failed one that failed only (unlike Crossbar 21.3.1, which
// never does), restart-never none; the node keeps running throughout.
func TestPyRestartModes(t *testing.T) {
	noRestartDelay(t)
	tests := []struct {
		mode, action string
		restarts     bool
	}{
		{"restart-never", "leave", false},
		{"restart-never", "fail", false},
		{"restart-always", "leave", true},
		{"restart-always", "fail", true},
		{"restart-on-failed", "leave", false},
		{"restart-on-failed", "fail", true},
	}
	for _, tt := range tests {
		t.Run(tt.mode+" "+tt.action, func(t *testing.T) {
			cbdir := pyProject(t)
			n, log := startPy(t, cbdir, pyDoc(pyRouter(""), pyContainer(`"restart": "`+tt.mode+`"`, pyComp("Echo", "com.example.c", overRawSocket))))
			s := joinRouter(t, cbdir)
			joined := joins(t, s)
			first := sessionOf(t, s, "com.example.c")
			act(t, s, "com.example.c", tt.action)
			next := "next=nothing"
			if tt.restarts {
				next = "next=restart"
			}
			log.wait(t, 1, `msg="component stopped"`, "component=workers[1].components[0]", "failed="+boolText(tt.action == "fail"), next)
			if tt.restarts {
				nextJoin(t, joined, "com.example.c", first)
				callEcho(t, s, "com.example.c.echo")
			} else if _, err := s.Call(testCtx(t), "com.example.c.echo", wamp.List{"hi"}, nil); err == nil {
				// no_such_procedure, or canceled when the router has not
				// yet seen the session end
				t.Error("the component answers after it stopped")
			}
			stillRunning(t, n)
		})
	}
}

// TestReadinessPython: a Python component counts as ready from its join
// until its session ends: while its container restarts it, the node is
// not ready, and it is again once the component has joined again.
func TestReadinessPython(t *testing.T) {
	tests := []struct {
		name  string
		delay time.Duration // before the restart
		back  bool
	}{
		{"away", time.Hour, false},
		{"back", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := restartDelay
			restartDelay = func(int) time.Duration { return tt.delay }
			t.Cleanup(func() { restartDelay = old })
			cbdir := pyProject(t)
			n, log := startPy(t, cbdir, pyDoc(pyRouter(""), pyContainer(`"restart": "restart-always"`, pyComp("Echo", "com.example.c", overRawSocket))))
			if r := n.Readiness(); !r.Ready {
				t.Fatalf("started: %+v", r)
			}
			act(t, joinRouter(t, cbdir), "com.example.c", "leave")
			log.wait(t, 1, `msg="component stopped"`, "component=workers[1].components[0]", "next=restart")
			if tt.back {
				log.wait(t, 2, `msg="component ready"`, "component=workers[1].components[0]")
				if r := n.Readiness(); !r.Ready {
					t.Errorf("restarted: %+v", r)
				}
				return
			}
			want := []string{"workers[1].components[0]: component not joined"}
			if r := n.Readiness(); r.Ready || !slices.Equal(r.NotReady, want) {
				t.Errorf("while it restarts: %+v", r)
			}
		})
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestPyRestartOnLostConnection: a component whose connection to the
// router is cut (no GOODBYE) has failed: restart-on-failed restarts it.
func TestPyRestartOnLostConnection(t *testing.T) {
	noRestartDelay(t)
	cbdir := pyProject(t)
	p := newUnixProxy(t, filepath.Join(cbdir, "proxy.sock"), filepath.Join(cbdir, "router.sock"))
	viaProxy := `{"type": "rawsocket", "endpoint": {"type": "unix", "path": "proxy.sock"}}`
	_, log := startPy(t, cbdir, pyDoc(pyRouter(""), pyContainer(`"restart": "restart-on-failed"`, pyComp("Echo", "com.example.c", viaProxy))))
	s := joinRouter(t, cbdir)
	joined := joins(t, s)
	first := sessionOf(t, s, "com.example.c")
	p.cut()
	log.wait(t, 1, `msg="component stopped"`, `reason="the connection to the router was lost"`, "failed=true", "next=restart")
	nextJoin(t, joined, "com.example.c", first)
	callEcho(t, s, "com.example.c.echo")
}

// TestPyShutdownModes: a container's shutdown mode shuts it down as its
// components' sessions end; a container that shuts down is a worker that
// exits cleanly, and the node stops by its default trigger
// shutdown_on_worker_exit, without an error.
func TestPyShutdownModes(t *testing.T) {
	tests := []struct {
		mode    string
		actions []string // on components a, b in turn
		shuts   []bool   // after each action
	}{
		{"shutdown-on-any-component-stopped", []string{"leave"}, []bool{true}},
		{"shutdown-on-any-component-failed", []string{"leave", "fail"}, []bool{false, true}},
		{"shutdown-on-last-component-stopped", []string{"leave", "fail"}, []bool{false, true}},
		{"shutdown-manual", []string{"leave", "fail"}, []bool{false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			cbdir := pyProject(t)
			n, log := startPy(t, cbdir, pyDoc(pyRouter(""), pyContainer(`"shutdown": "`+tt.mode+`"`,
				pyComp("Echo", "com.example.a", overRawSocket)+","+pyComp("Echo", "com.example.b", overWebSocket))))
			s := joinRouter(t, cbdir)
			for i, action := range tt.actions {
				name := []string{"com.example.a", "com.example.b"}[i]
				act(t, s, name, action)
				if tt.shuts[i] {
					shutsDown(t, n, false)
					log.wait(t, 1, `msg="container shutting down"`, "mode="+tt.mode)
					log.wait(t, 1, `msg="worker exited; the node shuts down"`, "trigger=shutdown_on_worker_exit")
					return
				}
				log.wait(t, i+1, `msg="component stopped"`, "next=nothing")
				stillRunning(t, n)
			}
		})
	}
}

// TestPyRunnerKilled: a runner killed from outside is its worker exiting
// with an error; the node stops or keeps running as the controller's
// shutdown triggers say.
func TestPyRunnerKilled(t *testing.T) {
	tests := []struct {
		name, triggers string // "" for the default
		stops          bool
	}{
		{"default", "", true},
		{"worker exit", `["shutdown_on_worker_exit"]`, true},
		{"worker exit with error", `["shutdown_on_worker_exit_with_error"]`, true},
		{"last worker exit", `["shutdown_on_last_worker_exit"]`, false}, // the router worker still runs
		{"shutdown requested", `["shutdown_on_shutdown_requested"]`, false},
		{"none", `[]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cbdir := pyProject(t)
			doc := pyDoc(pyRouter(""), pyContainer("", pyComp("Echo", "com.example.c", overRawSocket)))
			if tt.triggers != "" {
				doc = strings.Replace(doc, `{"version": 2,`, `{"version": 2, "controller": {"options": {"shutdown": `+tt.triggers+`}},`, 1)
			}
			n, log := startPy(t, cbdir, doc)
			s := joinRouter(t, cbdir)
			kill(t, s, "com.example.c")
			if tt.stops {
				shutsDown(t, n, true)
				return
			}
			log.wait(t, 1, `msg="worker exited; the node keeps running`, "worker=workers[1]", "killed by signal 9")
			stillRunning(t, n)
			joinRouter(t, cbdir) // the router still serves
		})
	}
}

// kill kills the runner of the component named name, by the PID it says.
func kill(t *testing.T, s *client.Session, name string) {
	t.Helper()
	res, err := s.Call(testCtx(t), wamp.URI(name+".info"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pid, ok := wamp.AsInt(dict(res.Args[0])["pid"])
	if !ok || pid == 0 {
		t.Fatalf("no pid in %v", res.Args)
	}
	if err := syscall.Kill(int(pid), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

// unixProxy relays connections from one Unix socket to another, and cuts
// them on demand (no close handshake reaches either side).
type unixProxy struct {
	mu    sync.Mutex
	conns []net.Conn
}

func newUnixProxy(t *testing.T, from, to string) *unixProxy {
	t.Helper()
	l, err := net.Listen("unix", from)
	if err != nil {
		t.Fatal(err)
	}
	p := &unixProxy{}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		l.Close()
		p.cut()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("unix", to)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			wg.Go(func() { io.Copy(u, c); u.Close() })
			wg.Go(func() { io.Copy(c, u); c.Close() })
		}
	})
	return p
}

// cut closes every relayed connection.
func (p *unixProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestPyWorkerExitTriggers: the controller's triggers weigh a worker's
// exit by how it ended: a container that shut down by its mode, or a
// runner that exited with status 0, exited cleanly (no
// shutdown_on_worker_exit_with_error); shutdown_on_last_worker_exit waits
// for every worker.
func TestPyWorkerExitTriggers(t *testing.T) {
	withTriggers := func(triggers string, workers ...string) string {
		return `{"version": 2, "controller": {"options": {"shutdown": ` + triggers + `}}, "workers": [` + strings.Join(workers, ",") + `]}`
	}
	t.Run("container shut down, on error only", func(t *testing.T) {
		cbdir := pyProject(t)
		n, log := startPy(t, cbdir, withTriggers(`["shutdown_on_worker_exit_with_error"]`, pyRouter(""),
			pyContainer(`"shutdown": "shutdown-on-any-component-stopped"`, pyComp("Echo", "com.example.c", overRawSocket))))
		act(t, joinRouter(t, cbdir), "com.example.c", "leave")
		log.wait(t, 1, `msg="worker exited; the node keeps running`, "worker=workers[1]", `why="the container shut down (shutdown-on-any-component-stopped): a component stopped"`)
		stillRunning(t, n)
	})
	t.Run("runner exits with status 0", func(t *testing.T) {
		cbdir := pyProject(t)
		n, log := startPy(t, cbdir, pyDoc(pyRouter(""), pyContainer("", pyComp("Echo", "com.example.c", overRawSocket))))
		if _, err := joinRouter(t, cbdir).Publish(testCtx(t), "com.example.c.exit", nil, nil, wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatal(err)
		}
		shutsDown(t, n, false)
		log.wait(t, 1, `msg="worker exited; the node shuts down"`, `why="its Python runner exited with status 0"`, "trigger=shutdown_on_worker_exit")
	})
	t.Run("last worker", func(t *testing.T) {
		cbdir := pyProject(t)
		n, log := startPy(t, cbdir, withTriggers(`["shutdown_on_last_worker_exit"]`, pyRouter(pyComp("Echo", "com.example.r", "")),
			pyContainer("", pyComp("Echo", "com.example.c", overRawSocket))))
		s := joinRouter(t, cbdir)
		kill(t, s, "com.example.c")
		log.wait(t, 1, `msg="worker exited; the node keeps running`, "worker=workers[1]")
		stillRunning(t, n)
		kill(t, s, "com.example.r")
		shutsDown(t, n, true)
		log.wait(t, 1, `msg="worker exited; the node shuts down"`, "worker=workers[0]", "trigger=shutdown_on_last_worker_exit")
	})
}

// TestPyEnvAndOutput: options.env makes the runner's environment
// (inherit, vars, PYTHONUNBUFFERED); what the runner prints goes to the
// node's log under the worker's path.
func TestPyEnvAndOutput(t *testing.T) {
	t.Setenv("PYAPP_INHERITED", "no")
	cbdir := pyProject(t)
	_, log := startPy(t, cbdir, pyDoc(pyRouter(""), pyContainer(`"env": {"inherit": ["HOME"], "vars": {"PYAPP_MODE": "from-vars"}}`,
		pyComp("Echo", "com.example.c", overRawSocket))))
	res, err := joinRouter(t, cbdir).Call(testCtx(t), "com.example.c.info", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := dict(dict(res.Args[0])["env"])
	if env["PYAPP_MODE"] != "from-vars" || env["PYAPP_INHERITED"] != nil || env["PYTHONUNBUFFERED"] != "1" || env["HOME"] != os.Getenv("HOME") {
		t.Errorf("environment %v: want PYAPP_MODE from vars, HOME inherited, PYTHONUNBUFFERED=1, nothing else", env)
	}
	log.wait(t, 1, `msg="joined com.example.c"`, "worker=workers[1]", "stream=stdout")
	log.wait(t, 1, `level=WARN msg="stderr of com.example.c"`, "worker=workers[1]", "stream=stderr")
}
