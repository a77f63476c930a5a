package config

import (
	"regexp"
	"slices"
	"strings"
)

// Worker is an item of "workers": a *RouterWorker, a *ContainerWorker, a
// *GuestWorker, a *ProxyWorker or a *TesteeWorker.
type Worker interface {
	// WorkerID is the worker's "id" ("" when not given).
	WorkerID() string
	isWorker()
}

// WorkerOptions are a worker's "options". "python", "pythonpath" and
// "env" apply to the worker's Python runner, which runs its Python class
// components (a warning when the worker has none); "cpu_affinity" and
// "extra" are accepted with a warning.
type WorkerOptions struct {
	// Title is "title": Crossbar's process title (default ""). Ignored
	// with a warning when given: workers run in-process, and logs name a
	// worker by its JSON path.
	Title string
	// Disabled is "disabled": the worker is not started (default false).
	Disabled bool
	// ExposeController is "expose_controller" (default false). Junction has
	// no controller API: a Python component's config.controller is always
	// None, which is what false asks for; true is a warning.
	ExposeController bool
	// ExposeShared is "expose_shared" (default false). Nothing is shared
	// between the components: a Python component's config.shared is
	// always None, which is what false asks for; true is a warning.
	ExposeShared bool
	// Python is "python": the interpreter of the worker's Python runner,
	// an absolute path or a command name looked up on the node's PATH
	// (default DefaultPython). Crossbar takes an absolute path only.
	Python string
	// PythonPath is "pythonpath": directories put before the Python
	// module search path (after sys.path[0], the directory the node was
	// started from), each relative to the node directory unless absolute.
	PythonPath []string
	// Env is "env": the environment of the worker's Python runner
	// (default DefaultProcessEnv).
	Env ProcessEnv
}

// DefaultPython is a worker's "options.python" when not given.
const DefaultPython = "python3"

// DefaultProcessEnv is a worker's "options.env" when not given: the
// node's whole environment.
var DefaultProcessEnv = ProcessEnv{InheritAll: true}

// worker decodes an item of "workers", by its "type".
func (d *decoder) worker(path string, v any) Worker {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	switch t := o.reqStr("type"); t {
	case "router":
		return d.routerWorker(o)
	case "container":
		return d.containerWorker(o)
	case "guest":
		return d.guestWorker(o)
	case "websocket-testee":
		return d.testeeWorker(o)
	case "proxy":
		return d.proxyWorker(o)
	case "":
		o.skip()
	case "xbrmm", "hub", "marketplace":
		d.errorf(o.at("type"), "not supported: worker type %q (%s)", t, unsupportedWorkers[t])
		o.skip()
	default:
		d.errorf(o.at("type"), "unknown worker type %q (want router, container, guest, proxy, websocket-testee)", t)
		o.skip()
	}
	return nil
}

// workerCommon decodes the keys every worker has: "id" and "options"; the
// options function decodes the worker type's own option keys.
func (d *decoder) workerCommon(o *object, extra func(*object)) (string, WorkerOptions) {
	id := d.id(o)
	opts := WorkerOptions{Python: DefaultPython, Env: DefaultProcessEnv}
	ov, ok := o.get("options")
	if !ok {
		return id, opts
	}
	oo, ok := d.object(o.at("options"), ov)
	if !ok {
		return id, opts
	}
	opts.Title = oo.str("title", "")
	oo.ignoredIf(opts.Title != "", "title", ": workers run in-process; logs name a worker by its JSON path")
	opts.Disabled = oo.boolean("disabled", false)
	opts.ExposeController = oo.boolean("expose_controller", false)
	oo.ignoredIf(opts.ExposeController, "expose_controller", ": there is no controller API; Python components get config.controller None")
	opts.ExposeShared = oo.boolean("expose_shared", false)
	oo.ignoredIf(opts.ExposeShared, "expose_shared", ": nothing is shared between components; Python components get config.shared None")
	opts.Python = oo.validStr("python", DefaultPython, pythonCommand,
		"must be an absolute path or a command name looked up on PATH, not %q")
	opts.PythonPath = oo.strList("pythonpath")
	if eo, ok := oo.child("env"); ok {
		opts.Env = d.processEnv(eo)
	}
	oo.ignored("cpu_affinity", pythonOnly)
	oo.ignored("extra", ": no worker code reads it")
	if extra != nil {
		extra(oo)
	}
	oo.done()
	return id, opts
}

// pythonCommand reports whether s names an interpreter: an absolute path,
// or a command name without a slash.
func pythonCommand(s string) bool {
	return s != "" && (strings.HasPrefix(s, "/") || !strings.Contains(s, "/"))
}

// pythonOptionsUsed warns about the Python runner's options of a worker
// that has no Python component (nor function authenticator or Python web
// path: otherPython), so no Python process.
func (d *decoder) pythonOptionsUsed(o *object, comps []*Component, otherPython bool) {
	if otherPython || slices.ContainsFunc(comps, (*Component).Python) {
		return
	}
	om, _ := o.m["options"].(map[string]any)
	for _, k := range []string{"env", "python", "pythonpath"} {
		if om[k] != nil {
			d.warnf(childPath(o.at("options"), k), "ignored: the worker has no Python component, function authenticator or Python web path to run")
		}
	}
}

// idPattern is what Crossbar accepts as an "id".
var idPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{2,63}$`)

// id decodes an optional "id" key.
func (d *decoder) id(o *object) string {
	id := o.str("id", "")
	if id != "" && !idPattern.MatchString(id) {
		d.errorf(o.at("id"), "invalid id %q (want a lower-case letter, then 2 to 63 lower-case letters, digits or '_')", id)
	}
	return id
}

// enum returns the string at key k, which must be one of want, or def
// when absent or wrong.
func (o *object) enum(k, def, what string, want ...string) string {
	if !o.has(k) {
		o.get(k)
		return def
	}
	n := len(o.d.errs)
	v := o.str(k, def)
	if len(o.d.errs) > n {
		return def
	}
	if !slices.Contains(want, v) {
		o.d.errorf(o.at(k), "unknown %s %q (want %s)", what, v, strings.Join(want, ", "))
		return def
	}
	return v
}
