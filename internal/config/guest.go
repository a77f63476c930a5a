package config

import (
	"slices"
	"strings"
	"time"
)

// GuestWorker is a worker of "type": "guest": a program the node starts,
// logs and stops, and never restarts when it exits (only "watch" does).
type GuestWorker struct {
	// ID is "id" (default "": the node names the worker by its JSON
	// path). Any string but "controller", as Crossbar.
	ID string
	// Executable is "executable" (required): tried relative to the
	// working directory first, then on the node's PATH.
	Executable string
	// Arguments is "arguments" (default none).
	Arguments []string
	// Options is "options".
	Options GuestOptions
}

// GuestOptions are a guest worker's "options".
type GuestOptions struct {
	// Workdir is "workdir": the working directory, relative to the node
	// directory (default "": the node directory).
	Workdir string
	// Env is "env": the guest's environment.
	Env ProcessEnv
	// Stdin is "stdin"; nil (absent) leaves the guest's stdin open, with
	// nothing written, until it exits.
	Stdin *GuestStdin
	// Stdout and Stderr are "stdout" and "stderr": "log" (default: each
	// line in the node log), "drop" (read and discarded) or "close" (the
	// node closes its end: the guest's writes fail).
	Stdout, Stderr string
	// Watch is "watch"; nil when absent.
	Watch *GuestWatch
}

// ProcessEnv is a worker's "env": which variables of the node's
// environment the process inherits, and which it gets set.
type ProcessEnv struct {
	// InheritAll is "inherit": true (the default) inherits the whole
	// environment, false none; a list of names sets it false and fills
	// Inherit.
	InheritAll bool
	// Inherit is the list of names given as "inherit".
	Inherit []string
	// Vars is "vars": variables set, over inherited ones. PYTHONUNBUFFERED
	// is set to 1 unless inherited or given here.
	Vars map[string]string
}

// GuestStdin is a guest's "stdin".
type GuestStdin struct {
	// Type is "close" (the string "close": end of file at once) or
	// "json" (the object form, whose "type" must be "json").
	Type string
	// Value is "value" (required for "json"), written as JSON with no
	// newline after it.
	Value any
	// Close is "close" (default true): stdin is closed once Value is
	// written; false leaves it open until the guest exits.
	Close bool
}

// GuestWatch is a guest's "watch": restart it when files change.
type GuestWatch struct {
	// Directories is "directories": watched recursively, each relative
	// to the node directory (default none).
	Directories []string
	// Action is "action": "restart" (the only action), or "" when absent,
	// when a change does nothing.
	Action string
	// Timeout is "timeout" (seconds, default 1): how long after the old
	// process ended the new one starts.
	Timeout time.Duration
}

// DefaultWatchTimeout is a guest's default "watch.timeout".
const DefaultWatchTimeout = time.Second

// WorkerID returns the worker's "id".
func (w *GuestWorker) WorkerID() string { return w.ID }
func (*GuestWorker) isWorker()          {}

var _ Worker = (*GuestWorker)(nil)

// guestOutputs are the values of "stdout" and "stderr".
var guestOutputs = []string{"log", "drop", "close"}

func (d *decoder) guestWorker(o *object) *GuestWorker {
	w := &GuestWorker{Options: GuestOptions{Stdout: "log", Stderr: "log", Env: ProcessEnv{InheritAll: true}}}
	w.ID = o.str("id", "")
	if o.has("id") && (w.ID == "" || w.ID == "controller") {
		d.errorf(o.at("id"), "invalid id %q (want a name other than controller)", w.ID)
	}
	n := len(d.errs)
	w.Executable = o.reqStr("executable")
	if len(d.errs) == n && w.Executable == "" {
		d.errorf(o.at("executable"), "must not be empty")
	}
	w.Arguments = o.strList("arguments")
	if oo, ok := o.child("options"); ok {
		d.guestOptions(oo, &w.Options)
	}
	o.done()
	return w
}

func (d *decoder) guestOptions(o *object, opts *GuestOptions) {
	opts.Workdir = o.str("workdir", "")
	if eo, ok := o.child("env"); ok {
		opts.Env = d.processEnv(eo)
	}
	opts.Stdin = d.guestStdin(o)
	opts.Stdout = o.enum("stdout", opts.Stdout, "output", guestOutputs...)
	opts.Stderr = o.enum("stderr", opts.Stderr, "output", guestOutputs...)
	if wo, ok := o.child("watch"); ok {
		opts.Watch = d.guestWatch(wo)
	}
	o.done()
}

// processEnv decodes an "env": "inherit" is a boolean or a list of names.
func (d *decoder) processEnv(o *object) ProcessEnv {
	env := ProcessEnv{InheritAll: true}
	if v, ok := o.get("inherit"); ok {
		if _, isList := v.([]any); isList {
			env.InheritAll = false
			env.Inherit = d.envNames(o.at("inherit"), o.strList("inherit"))
		} else {
			env.InheritAll = o.boolean("inherit", true)
		}
	}
	o.each("vars", func(p, k string, v any) {
		if len(d.envNames(o.at("vars"), []string{k})) == 0 {
			return
		}
		if s, ok := d.str(p, v); ok {
			if env.Vars == nil {
				env.Vars = map[string]string{}
			}
			env.Vars[k] = s
		}
	})
	o.done()
	return env
}

// envNames returns the names that can name an environment variable (not
// empty, no "="), reporting the others at path.
func (d *decoder) envNames(path string, names []string) []string {
	return slices.DeleteFunc(names, func(n string) bool {
		if n != "" && !strings.Contains(n, "=") {
			return false
		}
		d.errorf(path, "invalid environment variable name %q", n)
		return true
	})
}

// guestStdin decodes "stdin": "close", or {"type": "json", "value": ...,
// "close": true}.
func (d *decoder) guestStdin(o *object) *GuestStdin {
	v, ok := o.get("stdin")
	if !ok {
		return nil
	}
	if _, isObj := v.(map[string]any); !isObj {
		o.enum("stdin", "close", "stdin", "close") // reports any other value
		return &GuestStdin{Type: "close", Close: true}
	}
	so, _ := o.child("stdin")
	s := &GuestStdin{Type: "json"}
	if so.reqStr("type") != "" {
		s.Type = so.enum("type", "json", "stdin type", "json")
	}
	if !so.has("value") {
		so.get("value")
		so.required("value")
	} else {
		raw, _ := so.get("value")
		s.Value = d.resolveDeep(so.at("value"), raw)
	}
	s.Close = so.boolean("close", true)
	so.done()
	return s
}

// guestWatch decodes "watch".
func (d *decoder) guestWatch(o *object) *GuestWatch {
	w := &GuestWatch{Timeout: DefaultWatchTimeout}
	w.Directories = o.strList("directories")
	if slices.Contains(w.Directories, "") {
		d.errorf(o.at("directories"), "a directory must not be empty")
	}
	if len(w.Directories) == 0 {
		d.warnf(o.path, "ignored: no directories to watch")
	}
	w.Action = o.enum("action", "", "watch action", "restart")
	if !o.has("action") {
		d.warnf(o.path, `ignored: no "action": "restart" (a change does nothing; Crossbar 21.3.1 stops the guest and does not restart it)`)
	}
	w.Timeout = d.nonNegSeconds(o, "timeout", w.Timeout)
	o.done()
	return w
}

// nonNegSeconds decodes a duration in seconds, a number >= 0, at key k.
func (d *decoder) nonNegSeconds(o *object, k string, def time.Duration) time.Duration {
	v, ok := o.get(k)
	if !ok {
		return def
	}
	s, ok := d.number(o.at(k), v)
	switch {
	case !ok:
		return def
	case s < 0 || s > maxSeconds:
		d.errorf(o.at(k), "must be in 0..%d seconds, not %g", int(maxSeconds), s)
		return def
	}
	return time.Duration(s * float64(time.Second))
}

// maxSeconds bounds a duration in seconds: a day.
const maxSeconds = 86400
