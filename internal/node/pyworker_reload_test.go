package node

import (
	"slices"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// TestReloadPyComponents: in the worker's running Python runner, a
// Python component whose config changed is stopped and started again
// with the new one, one added started, one removed stopped, one that
// fails to start reported; the others keep their sessions, and a
// container's restart and shutdown modes do not act on a reload's stops.
func TestReloadPyComponents(t *testing.T) {
	tests := []struct {
		name      string
		doc       func(comps string) string
		transport string // of its components
		path      string // the worker's
	}{
		{"router", func(comps string) string { return pyDoc(pyRouter(comps)) }, "", "workers[0]"},
		{"container restart-always", func(comps string) string {
			return pyDoc(pyRouter(""), pyContainer(`"restart": "restart-always"`, comps))
		}, overRawSocket, "workers[1]"},
		{"container shutdown-on-any-component-stopped", func(comps string) string {
			return pyDoc(pyRouter(""), pyContainer(`"shutdown": "shutdown-on-any-component-stopped"`, comps))
		}, overRawSocket, "workers[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cbdir := pyProject(t)
			// echo is the config with a pyapp.Echo of each name, but
			// com.raise: a pyapp.RaiseInInit (its start fails)
			echo := func(names ...string) string {
				var comps []string
				for _, name := range names {
					class := "Echo"
					if name == "com.raise" {
						class = "RaiseInInit"
					}
					comps = append(comps, pyComp(class, name, tt.transport))
				}
				return tt.doc(strings.Join(comps, ","))
			}
			n, log := startPy(t, cbdir, echo("com.one", "com.keep"))
			s := joinRouter(t, cbdir)
			keep := sessionOf(t, s, "com.keep")
			comp := func(i string) string { return tt.path + ".components[" + i + "]" }

			rep := reloadDocument(t, n, echo("com.two", "com.keep", "com.three"))
			if got := paths(rep.Applied); !slices.Equal(got, []string{comp("0"), comp("2")}) || len(rep.Restart)+len(rep.Failed) != 0 {
				t.Errorf("report %+v, want components 0 restarted and 2 started", rep)
			}
			log.wait(t, 1, `msg="component stopped"`, "component="+comp("0"), `reason="the configuration changed"`)
			if _, err := s.Call(testCtx(t), "com.one.echo", wamp.List{"hi"}, nil); wampURIOf(err) != wamp.ErrNoSuchProcedure {
				t.Errorf("call com.one.echo after the reload: %v, want %s", err, wamp.ErrNoSuchProcedure)
			}
			callEcho(t, s, "com.two.echo")
			callEcho(t, s, "com.three.echo")
			if got := sessionOf(t, s, "com.keep"); got != keep {
				t.Errorf("com.keep's session %d, now %d: want it untouched", keep, got)
			}

			rep = reloadDocument(t, n, echo("com.two", "com.keep", "com.raise"))
			if got := paths(rep.Failed); !slices.Equal(got, []string{comp("2")}) || len(rep.Applied)+len(rep.Restart) != 0 {
				t.Errorf("report %+v, want component 2 stopped and its replacement failed", rep)
			}
			if _, err := s.Call(testCtx(t), "com.three.echo", wamp.List{"hi"}, nil); wampURIOf(err) != wamp.ErrNoSuchProcedure {
				t.Errorf("call com.three.echo after its removal: %v, want %s", err, wamp.ErrNoSuchProcedure)
			}
			if got, _ := log.count(`msg="restarting component"`); got != 0 {
				t.Errorf("%d restarts after a reload's stops, want none", got)
			}
			stillRunning(t, n)
			if r := n.Readiness(); !r.Ready {
				t.Errorf("readiness after the reloads: %+v", r)
			}
			callEcho(t, s, "com.two.echo")
			if got := sessionOf(t, s, "com.keep"); got != keep {
				t.Errorf("com.keep's session %d, now %d: want it untouched", keep, got)
			}
		})
	}
}

// TestReloadPyOptions: when a worker's options change (its runner would
// have to be replaced), its Python components changed need a restart
// and keep running as they were.
func TestReloadPyOptions(t *testing.T) {
	cbdir := pyProject(t)
	doc := func(name, options string) string {
		d := pyDoc(pyRouter(pyComp("Echo", name, "")))
		return strings.Replace(d, `"pythonpath": [".."]`, `"pythonpath": [".."]`+options, 1)
	}
	n, _ := startPy(t, cbdir, doc("com.one", ""))
	rep := reloadDocument(t, n, doc("com.two", `, "env": {"vars": {"PYAPP_MODE": "x"}}`))
	if got := paths(rep.Restart); !slices.Equal(got, []string{"workers[0].options", "workers[0].components[0]"}) || len(rep.Applied)+len(rep.Failed) != 0 {
		t.Errorf("report %+v, want the options and the component to need a restart", rep)
	}
	callEcho(t, joinRouter(t, cbdir), "com.one.echo")
}

// reloadDocument reloads n with the config doc.
func reloadDocument(t *testing.T, n *Node, doc string) ReloadReport {
	t.Helper()
	rep, err := n.Reload(testCtx(t), parse(t, doc, nil))
	if err != nil {
		t.Fatalf("Reload: %v", err)
	}
	return rep
}

// TestReloadContainerWorker: a container worker added (or enabled) is
// started, one removed (or disabled) stopped, without the node taking
// its stop for a worker's exit; the exit of one a reload started counts,
// and one removed no longer does.
func TestReloadContainerWorker(t *testing.T) {
	container := func(options string) string {
		return pyContainer(options, pyComp("Echo", "com.c", overRawSocket))
	}
	tests := []struct {
		name          string
		without, with string // the config without and with the container
	}{
		{"added and removed", pyDoc(pyRouter("")), pyDoc(pyRouter(""), container(""))},
		{"enabled and disabled", pyDoc(pyRouter(""), container(`"disabled": true`)), pyDoc(pyRouter(""), container(""))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cbdir := pyProject(t)
			n, log := startPy(t, cbdir, tt.without)
			s := joinRouter(t, cbdir)

			rep := reloadDocument(t, n, tt.with)
			if got := paths(rep.Applied); !slices.Equal(got, []string{"workers[1]"}) || len(rep.Restart)+len(rep.Failed) != 0 {
				t.Errorf("report %+v, want workers[1] started", rep)
			}
			callEcho(t, s, "com.c.echo")
			if r := n.Readiness(); !r.Ready {
				t.Errorf("readiness with the container: %+v", r)
			}

			rep = reloadDocument(t, n, tt.without)
			if got := paths(rep.Applied); !slices.Equal(got, []string{"workers[1]"}) || len(rep.Restart)+len(rep.Failed) != 0 {
				t.Errorf("report %+v, want workers[1] stopped", rep)
			}
			if _, err := s.Call(testCtx(t), "com.c.echo", wamp.List{"hi"}, nil); wampURIOf(err) != wamp.ErrNoSuchProcedure {
				t.Errorf("call com.c.echo after the container's removal: %v, want %s", err, wamp.ErrNoSuchProcedure)
			}
			stillRunning(t, n)

			reloadDocument(t, n, tt.with)
			if _, err := s.Publish(testCtx(t), "com.c.exit", nil, nil, wamp.Dict{"acknowledge": true}); err != nil {
				t.Fatal(err)
			}
			shutsDown(t, n, false)
			log.wait(t, 1, `msg="worker exited; the node shuts down"`, "worker=workers[1]", "trigger=shutdown_on_worker_exit")
		})
	}
	t.Run("last worker", func(t *testing.T) {
		cbdir := pyProject(t)
		doc := func(workers ...string) string {
			return `{"version": 2, "controller": {"options": {"shutdown": ["shutdown_on_last_worker_exit"]}}, "workers": [` +
				strings.Join(workers, ",") + `]}`
		}
		router := pyRouter(pyComp("Echo", "com.r", ""))
		n, log := startPy(t, cbdir, doc(router, container("")))
		reloadDocument(t, n, doc(router))
		kill(t, joinRouter(t, cbdir), "com.r")
		shutsDown(t, n, true)
		log.wait(t, 1, `msg="worker exited; the node shuts down"`, "worker=workers[0]", "trigger=shutdown_on_last_worker_exit")
	})
}
