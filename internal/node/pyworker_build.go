package node

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/process"
	"github.com/junction-wamp/junction/internal/pyrunner"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
)

// runnerSocket are the RawSocket options of the node's end of a Python
// component's socket pair: Autobahn asks for 16 MiB messages; the
// router's or the transport's own limits apply behind it.
var runnerSocket = rawsocket.Options{MaxMessageSize: 1 << 24}

// pyWorker builds the Python runner of the worker at path for comps (its
// Python class components) and auths (a router worker's function
// authenticators; nil for none), or records why it cannot: the
// interpreter is not found. Nothing starts here.
func (b *builder) pyWorker(path string, router bool, opts config.WorkerOptions, comps []*pyComponent, auths *functionAuths) *pyWorker {
	if len(comps) == 0 && auths.empty() {
		return nil
	}
	python, err := resolvePython(opts.Python)
	if err != nil {
		b.fail(fieldError(path+".options.python", fmt.Errorf("node: Python interpreter %q: %w", opts.Python, err)))
		return nil
	}
	cbdir := b.resolve(".")
	startDir, err := os.Getwd()
	if err != nil {
		startDir = cbdir
	}
	level := "info"
	if b.log.Enabled(context.Background(), slog.LevelDebug) {
		level = "debug"
	}
	env := withPythonPath(processEnviron(opts.Env, os.Environ()), b.pythonPaths(opts.PythonPath))
	w := &pyWorker{path: path, router: router, python: python, comps: comps, auths: auths, log: b.log.With("worker", path),
		exited: b.node.workerExited,
		spec: process.Spec{Name: path, Path: python, Dir: cbdir, Env: env, Stdin: pyrunner.Source, Logger: b.log,
			Args: pyrunner.Args(pyrunner.Settings{Worker: path, CBDir: cbdir, StartDir: startDir, Level: level})}}
	b.node.runners = append(b.node.runners, w)
	return w
}

// routerPyComponent is a Python component of a router: its session
// joins the router through gate, with the component's role fixed and
// without authentication, over a socket pair only the runner holds.
func routerPyComponent(path string, c *config.Component, gate *router.Gate, log *slog.Logger) *pyComponent {
	return newPyComponent(path, c, func(_ context.Context, r *pyrunner.Run) (bool, error) {
		p, err := rawsocket.Accept(r.Conn, runnerSocket)
		if err != nil {
			log.Debug("component's socket: no handshake", "component", path, "err", err)
			r.Conn.Close() // the start fails in the runner's words
			return false, nil
		}
		gate.Attach(p)
		return false, nil
	})
}

// containerPyComponent is a Python component of a container: the node
// dials its configured transport (url names it) for each session, and
// relays between it and the runner's socket pair.
func containerPyComponent(path string, c *config.Component, dial client.Dialer, url string, log *slog.Logger) *pyComponent {
	return newPyComponent(path, c, func(ctx context.Context, r *pyrunner.Run) (bool, error) {
		inner, err := rawsocket.Accept(r.Conn, runnerSocket)
		if err != nil {
			log.Debug("component's socket: no handshake", "component", path, "err", err)
			r.Conn.Close()
			return false, nil
		}
		outer, err := dial(ctx)
		if err != nil {
			inner.Close()
			return false, fmt.Errorf("node: cannot connect to %s: %w", url, err)
		}
		return relay(inner, outer), nil
	})
}
