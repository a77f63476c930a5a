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
// its "shutdown" triggers apply to the node; the other settings are
// decoded and checked for compatibility, and each one that asks for
// something is reported as ignored.
type Controller struct {
	// ID is "id": Crossbar's node name (default ""). Ignored with a
	// warning when given: Junction has no controller to name.
	ID string
	// Title is "options.title": Crossbar's process title (default "").
	// Ignored with a warning when given: the process title is not set.
	Title string
	// Shutdown is "options.shutdown": the triggers that stop the node by
	// itself when a worker exits (a worker's Python runner ends, or a
	// container shuts down): ShutdownOnWorkerExit,
	// ShutdownOnWorkerExitWithError, ShutdownOnLastWorkerExit, and
	// ShutdownOnShutdownRequested (SIGINT and SIGTERM, which always stop
	// the node). Default: [ShutdownOnWorkerExit], Crossbar's; an empty list
	// is no trigger. A single string is a list of one.
	Shutdown []string
	// Cluster is "cluster", a Junction extension (default nil: one node).
	Cluster *Cluster
}

// The node shutdown triggers of "controller.options.shutdown".
const (
	ShutdownOnShutdownRequested   = "shutdown_on_shutdown_requested"
	ShutdownOnWorkerExit          = "shutdown_on_worker_exit"
	ShutdownOnWorkerExitWithError = "shutdown_on_worker_exit_with_error"
	ShutdownOnLastWorkerExit      = "shutdown_on_last_worker_exit"
)

// config decodes the top level.
func (d *decoder) config(v any) *Config {
	c := &Config{Version: 2, Controller: Controller{Shutdown: []string{ShutdownOnWorkerExit}}}
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
		d.errorf("version", "required: %s", missingVersion)
		return 2
	}
	n := o.integer("version", 2, minInt, maxInt)
	switch {
	case n == 2:
	case n < 2:
		d.errorf("version", "configuration too old (version %d): %s", n, upgradeHint)
	default:
		d.errorf("version", "unknown configuration version %d (want 2)", n)
	}
	return int(n)
}

// controller decodes "controller".
func (d *decoder) controller(path string, v any) Controller {
	c := Controller{Shutdown: []string{ShutdownOnWorkerExit}}
	o, ok := d.object(path, v)
	if !ok {
		return c
	}
	c.ID = o.str("id", "")
	o.ignoredIf(c.ID != "", "id", ": Junction has no separate controller to name")
	if ov, ok := o.get("options"); ok {
		d.controllerOptions(o.at("options"), ov, &c)
	}
	if cv, ok := o.get("cluster"); ok {
		c.Cluster = d.cluster(o.at("cluster"), cv)
	}
	o.ignored("extra", ": the controller runs no user code")
	o.ignored("manhole", pythonOnly)
	o.ignored("connections", databaseConnections)
	o.unsupported("fabric", " (Crossbar.io FX fabric)")
	o.unsupported("enable_docker", " (Docker control)")
	o.unsupported("blockchain", " (XBR)")
	o.done()
	return c
}

const pythonOnly = ": Python-only"

// controllerShutdown are the values of "controller.options.shutdown".
var controllerShutdown = []string{
	ShutdownOnShutdownRequested, ShutdownOnWorkerExit,
	ShutdownOnWorkerExitWithError, ShutdownOnLastWorkerExit,
}

func (d *decoder) controllerOptions(path string, v any, c *Controller) {
	o, ok := d.object(path, v)
	if !ok {
		return
	}
	c.Title = o.str("title", "")
	o.ignoredIf(c.Title != "", "title", ": the process title is not set")
	if o.has("shutdown") {
		c.Shutdown = d.shutdownTriggers(o)
	}
	o.ignored("enable_parallel_worker_start", ": workers start in order")
	o.ignored("env", ": workers run in-process")
	o.ignored("pythonpath", pythonOnly)
	o.ignored("python", pythonOnly)
	o.ignored("cpu_affinity", pythonOnly)
	o.done()
}

// shutdownTriggers decodes "shutdown": a list of triggers, or one as a
// string.
func (d *decoder) shutdownTriggers(o *object) []string {
	p := o.at("shutdown")
	if v, isStr := o.m["shutdown"].(string); isStr {
		o.get("shutdown")
		s, ok := d.str(p, v)
		if !ok {
			return nil
		}
		d.checkTrigger(p, s)
		return []string{s}
	}
	triggers := o.strList("shutdown")
	for i, s := range triggers {
		d.checkTrigger(p+"["+itoa(i)+"]", s)
	}
	return append([]string{}, triggers...)
}

func (d *decoder) checkTrigger(path, s string) {
	if !slices.Contains(controllerShutdown, s) {
		d.errorf(path, "unknown shutdown mode %q (want %s)", s, strings.Join(controllerShutdown, ", "))
	}
}
