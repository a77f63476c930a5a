package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/ctxwait"
	"github.com/junction-wamp/junction/internal/process"
	"github.com/junction-wamp/junction/internal/pyweb"
	"github.com/junction-wamp/junction/internal/web"
)

// buildWSGI builds a "wsgi" path: a reverse proxy to the Python process
// that serves the application (see pyWebUnit).
func buildWSGI(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.WSGIService)
	return env.pyWeb(path, url, pyweb.Settings{Kind: pyweb.KindWSGI, Module: s.Module, Object: s.Object,
		MaxThreads: s.MaxThreads}, nil)
}

// buildResource builds a "resource" path: a reverse proxy to the Python
// process that serves the Twisted Web resource (see pyWebUnit).
func buildResource(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.ResourceService)
	return env.pyWeb(path, url, pyweb.Settings{Kind: pyweb.KindResource, Classname: s.Classname, Extra: s.Extra}, nil)
}

// wapMaxThreads bounds the requests a wap process serves at once: each
// waits for its call (bounded by the Caller's default call timeout).
const wapMaxThreads = 64

// buildWAP builds a "wap" path: a reverse proxy to the Python process
// that renders the pages, and the Caller service, on an embedded session
// joined to wamp.realm as wamp.authrole, that answers the process's calls
// on a second socket in the same private directory (see pyWebUnit).
func buildWAP(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.WAPService)
	calls, err := bridge.NewCaller(env.sessionFor(path, &config.BridgeService{Realm: s.Realm, Role: s.AuthRole}, false),
		bridge.CallerOptions{Common: bridge.Common{Logger: env.b.log.With("url", url)}})
	if err != nil {
		return nil, fieldError(path, err)
	}
	set := pyweb.Settings{Kind: pyweb.KindWAP, MaxThreads: wapMaxThreads, Sandbox: s.Sandbox,
		TemplatesPackage: s.Templates.Package, TemplatesResource: s.Templates.Resource}
	if s.Templates.Dir != "" {
		set.Templates = env.b.resolve(s.Templates.Dir)
	}
	for _, r := range s.Routes {
		set.Routes = append(set.Routes, pyweb.WAPRoute{Path: r.Path, Method: r.Method, Call: r.Call, Render: r.Render})
	}
	return env.pyWeb(path, url, set, calls)
}

// pyWeb makes the unit of a Python web path at path (URL path url) and
// the proxy that serves it; calls, when not nil, serves a wap process's
// calls. Nothing is imported or started here (junction check stops at
// the build, as Crossbar's check imports nothing): only the worker's
// interpreter is looked up.
func (env *pathEnv) pyWeb(path, url string, s pyweb.Settings, calls http.Handler) (http.Handler, error) {
	b, opts := env.b, env.router.opts
	python, err := resolvePython(opts.Python)
	if err != nil {
		return nil, fieldError(env.router.path+".options.python", fmt.Errorf("node: Python interpreter %q: %w", opts.Python, err))
	}
	s.Path, s.Prefix = path, strings.TrimSuffix(url, "/")
	if s.StartDir, err = os.Getwd(); err != nil {
		s.StartDir = b.resolve(".")
	}
	args, err := pyweb.Args(s)
	if err != nil {
		return nil, fieldError(path, err)
	}
	u := &pyWebUnit{path: path, url: url, kind: s.Kind, python: python, calls: calls,
		log: b.log.With("path", path, "url", url), wait: ctxwait.Sleep,
		spec: process.Spec{Name: path, Path: python, Dir: b.resolve("."), Args: args, Stdin: pyweb.Source, Logger: b.log,
			Env: withPythonPath(processEnviron(opts.Env, os.Environ()), b.pythonPaths(opts.PythonPath))}}
	p, err := web.NewReverseProxy(web.ReverseProxyOptions{Host: "localhost", Path: s.Prefix, Dial: u.dial,
		Logger: b.log.With("url", url)})
	if err != nil {
		return nil, fieldError(path, err)
	}
	b.node.pyWebs = append(b.node.pyWebs, u)
	env.addProxy(path, p)
	return env.meterProxy(path, url, p), nil
}

// pyWebUnit is the Python process of a "wsgi", "resource" or "wap" path: started
// with the node (Start waits until it serves; a module or class that does
// not import fails the start, in Python's words), restarted with backoff
// when it dies (its path answers 502 meanwhile), stopped with the node.
// Its socket is a Unix socket in a directory of mode 0700: only the
// node's user reaches the application, through the node's proxy. A wap
// path's unit also serves calls, the Caller that makes the process's WAMP
// calls, on a second socket in that directory, from start to stop.
//
// start and stop are called by the Node, one at a time, start first;
// supervise owns the process between them.
type pyWebUnit struct {
	path, url string
	kind      string // pyweb.KindWSGI or KindResource
	python    string
	spec      process.Spec // but the descriptors, new for each process
	log       *slog.Logger
	// wait waits d or until ctx ends, reporting whether d passed: the
	// delay before a restart. Tests replace it.
	wait func(ctx context.Context, d time.Duration) bool

	calls http.Handler // a wap path's Caller; nil for the others

	sock    pyweb.Socket // opened by start
	callSrv *http.Server // serves calls, from start to stop
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup // supervise

	mu   sync.Mutex       // guards proc
	proc *process.Process // the latest process
}

// snapshotPyWebs returns the Python web paths' units, under n.mu (a
// reload replaces the slice, never changing it in place).
func (n *Node) snapshotPyWebs() []*pyWebUnit {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.pyWebs
}

// dial is the proxy's: the socket, once a process serves it.
func (u *pyWebUnit) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return u.sock.Dial(ctx, network, addr)
}

// start makes the socket's directory and starts the process, waiting
// until it serves.
func (u *pyWebUnit) start(ctx context.Context) error {
	if err := u.sock.Open(); err != nil {
		return pathError(u.path, err)
	}
	if err := u.serveCalls(); err != nil {
		u.sock.Close()
		return pathError(u.path, err)
	}
	u.ctx, u.cancel = context.WithCancel(context.Background())
	proc, err := u.run(ctx)
	if err != nil {
		u.cancel()
		u.cancel = nil // nothing left for stop
		u.closeCalls()
		u.sock.Close()
		return err
	}
	u.wg.Go(func() { u.supervise(proc, time.Now()) })
	return nil
}

// serveCalls serves a wap path's calls on their socket.
func (u *pyWebUnit) serveCalls() error {
	if u.calls == nil {
		return nil
	}
	ln, err := u.sock.ListenCalls()
	if err != nil {
		return err
	}
	u.callSrv = &http.Server{Handler: u.calls, ReadHeaderTimeout: time.Minute, ErrorLog: slog.NewLogLogger(u.log.Handler(), slog.LevelWarn)}
	u.wg.Go(func() { _ = u.callSrv.Serve(ln) })
	return nil
}

// closeCalls stops serving calls: the calls under way end (the process
// is stopped first).
func (u *pyWebUnit) closeCalls() {
	if u.callSrv != nil {
		u.callSrv.Close()
	}
}

// run starts a process on a new listening socket and waits until it
// serves, or stops it again. Its error names the path (the module or
// class at their keys).
func (u *pyWebUnit) run(ctx context.Context) (*process.Process, error) {
	ln, err := u.sock.Listen()
	if err != nil {
		return nil, pathError(u.path, err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		ln.Close()
		return nil, pathError(u.path, err)
	}
	spec := u.spec
	spec.ExtraFiles = []*os.File{ln, w}
	proc, err := process.Start(spec)
	ln.Close()
	w.Close()
	if err != nil {
		r.Close()
		return nil, pathError(u.path, fmt.Errorf("node: Python web process: %w", err))
	}
	u.mu.Lock()
	u.proc = proc
	u.mu.Unlock()
	if err := pyweb.WaitReady(ctx, r, proc.Done()); err != nil {
		proc.Stop(context.Background())
		return nil, u.startError(err, proc)
	}
	u.sock.SetServing(true)
	u.log.Info("Python web path serving", "type", u.kind, "pid", proc.PID(), "python", u.python)
	return proc, nil
}

// startError words why a process did not serve.
func (u *pyWebUnit) startError(err error, proc *process.Process) error {
	var se *pyweb.StartError
	switch {
	case errors.As(err, &se):
		if se.Traceback != "" {
			u.log.Error("Python web path failed to start", "err", se.Message, "traceback", se.Traceback)
		}
		path := u.path
		if se.Key != "" {
			path += "." + se.Key
		}
		return fieldError(path, fmt.Errorf("node: %s (%s)", se.Message, u.python))
	case errors.Is(err, pyweb.ErrEnded):
		return pathError(u.path, fmt.Errorf("node: the Python web process (%s) ended before it was ready: %s", u.python, exitStatus(proc)))
	}
	return pathError(u.path, fmt.Errorf("node: Python web process (%s): %w", u.python, err))
}

// supervise waits for the process's end and starts another, after
// restartDelay (as a container restarts a component: at once the first
// time, then backing off while each run ends within restartResetAfter),
// until the unit stops. A start that fails counts as a quick end.
func (u *pyWebUnit) supervise(proc *process.Process, started time.Time) {
	quick := 0
	for {
		if proc != nil {
			select {
			case <-proc.Done():
			case <-u.ctx.Done():
				return
			}
			u.sock.SetServing(false)
			u.log.Error("Python web process exited: the path answers 502 until it serves again", "err", exitStatus(proc))
		}
		if proc == nil || time.Since(started) < restartResetAfter {
			quick++
		} else {
			quick = 0
		}
		delay := restartDelay(quick)
		u.log.Info("restarting the Python web process", "in", delay)
		if !u.wait(u.ctx, delay) {
			return
		}
		started = time.Now()
		var err error
		if proc, err = u.run(u.ctx); err != nil {
			if u.ctx.Err() != nil {
				return
			}
			u.log.Error("Python web process did not start again", "err", err)
		}
	}
}

// stop stops the process (SIGTERM, then SIGKILL after its grace or when
// ctx ends) and removes the socket's directory. Safe on a unit that never
// started.
func (u *pyWebUnit) stop(ctx context.Context) error {
	if u.cancel == nil {
		return nil
	}
	u.cancel()
	u.mu.Lock()
	proc := u.proc
	u.mu.Unlock()
	var err error
	if proc != nil {
		err = proc.Stop(ctx)
	}
	u.closeCalls()
	u.wg.Wait() // a process it was starting is stopped by run
	if proc != nil {
		u.log.Info("Python web process stopped", "pid", proc.PID())
	}
	return errors.Join(pathErrorOrNil(u.path, err), pathErrorOrNil(u.path, u.sock.Close()))
}

// pathErrorOrNil is pathError for an error that may be nil.
func pathErrorOrNil(path string, err error) error {
	if err == nil {
		return nil
	}
	return pathError(path, err)
}
