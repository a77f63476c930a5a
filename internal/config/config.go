package config

import (
	"slices"
	"strings"
)

// Config is a node configuration (Crossbar.io node configuration version 2).
type Config struct {
	// Version is "version": it must be 2.
	Version int
	// Controller is "controller": the node controller's settings.
	Controller Controller
	// Workers is "workers": each is a *RouterWorker, a *ContainerWorker or
	// a *GuestWorker.
	Workers []Worker
}

// Controller is "controller". Junction has no separate controller process:
// these settings are decoded and checked for compatibility, and each one
// that asks for something is reported as ignored.
type Controller struct {
	// ID is "id": Crossbar's node name (default ""). Ignored with a
	// warning when given: Junction has no controller to name.
	ID string
	// Title is "options.title": Crossbar's process title (default "").
	// Ignored with a warning when given: the process title is not set.
	Title string
	// Shutdown is "options.shutdown": when the node stops by itself, e.g.
	// ["shutdown_on_worker_exit"] (default none). The node always runs
	// until it gets SIGINT or SIGTERM, so every mode other than
	// "shutdown_on_shutdown_requested" is ignored with a warning.
	Shutdown []string
}

// config decodes the top level.
func (d *decoder) config(v any) *Config {
	c := &Config{Version: 2}
	o, ok := d.object("", v)
	if !ok {
		return c
	}
	o.get("$schema")
	c.Version = d.version(o)
	if cv, ok := o.get("controller"); ok {
		c.Controller = d.controller(o.at("controller"), cv)
	}
	o.list("workers", func(p string, v any) {
		if w := d.worker(p, v); w != nil {
			c.Workers = append(c.Workers, w)
		}
	})
	o.done()
	return c
}

// version decodes "version", which must be 2.
func (d *decoder) version(o *object) int {
	if !o.has("version") {
		o.get("version")
		o.required("version")
		return 2
	}
	n := o.integer("version", 2, minInt, maxInt)
	switch {
	case n == 2:
	case n < 2:
		d.errorf("version", "configuration too old (version %d), please upgrade to version 2", n)
	default:
		d.errorf("version", "unknown configuration version %d (want 2)", n)
	}
	return int(n)
}

// controller decodes "controller".
func (d *decoder) controller(path string, v any) Controller {
	var c Controller
	o, ok := d.object(path, v)
	if !ok {
		return c
	}
	c.ID = o.str("id", "")
	o.ignoredIf(c.ID != "", "id", ": Junction has no separate controller to name")
	if ov, ok := o.get("options"); ok {
		d.controllerOptions(o.at("options"), ov, &c)
	}
	o.ignored("extra", ": the controller runs no user code")
	o.ignored("manhole", pythonOnly)
	o.unsupported("connections", " (controller database connections)")
	o.unsupported("fabric", " (Crossbar.io FX fabric)")
	o.unsupported("enable_docker", " (Docker control)")
	o.unsupported("blockchain", " (XBR)")
	o.done()
	return c
}

const pythonOnly = ": Python-only"

// controllerShutdown are the values of "controller.options.shutdown".
var controllerShutdown = []string{
	"shutdown_on_shutdown_requested", "shutdown_on_worker_exit",
	"shutdown_on_worker_exit_with_error", "shutdown_on_last_worker_exit",
}

func (d *decoder) controllerOptions(path string, v any, c *Controller) {
	o, ok := d.object(path, v)
	if !ok {
		return
	}
	c.Title = o.str("title", "")
	o.ignoredIf(c.Title != "", "title", ": the process title is not set")
	c.Shutdown = o.strList("shutdown")
	for i, s := range c.Shutdown {
		p := o.at("shutdown") + "[" + itoa(i) + "]"
		switch {
		case !slices.Contains(controllerShutdown, s):
			d.errorf(p, "unknown shutdown mode %q (want %s)", s, strings.Join(controllerShutdown, ", "))
		case s != "shutdown_on_shutdown_requested":
			d.warnf(p, "ignored: the node runs until it gets SIGINT or SIGTERM")
		}
	}
	o.ignored("enable_parallel_worker_start", ": workers start in order")
	o.ignored("env", ": workers run in-process")
	o.ignored("pythonpath", pythonOnly)
	o.ignored("python", pythonOnly)
	o.ignored("cpu_affinity", pythonOnly)
	o.done()
}
