package config

import "slices"

// A container's "options.shutdown": when the container stops, as its
// Python components' sessions end.
const (
	// ShutdownManual: never by itself (the default).
	ShutdownManual = "shutdown-manual"
	// ShutdownOnLastComponentStopped: when it has no component left.
	ShutdownOnLastComponentStopped = "shutdown-on-last-component-stopped"
	// ShutdownOnAnyComponentFailed: when a component fails.
	ShutdownOnAnyComponentFailed = "shutdown-on-any-component-failed"
	// ShutdownOnAnyComponentStopped: when any component stops.
	ShutdownOnAnyComponentStopped = "shutdown-on-any-component-stopped"
)

// A container's "options.restart": which of its Python components are
// started again when their session ends.
const (
	// RestartNever: none (the default).
	RestartNever = "restart-never"
	// RestartAlways: every one.
	RestartAlways = "restart-always"
	// RestartOnFailed: those that failed.
	RestartOnFailed = "restart-on-failed"
)

// ContainerWorker is a worker of "type": "container": components that
// connect to a router over a transport.
type ContainerWorker struct {
	// ID is "id" (default "").
	ID string
	// Options is "options".
	Options WorkerOptions
	// Shutdown is "options.shutdown": when the container stops by itself,
	// one of ShutdownManual (the default), ShutdownOnLastComponentStopped,
	// ShutdownOnAnyComponentFailed, ShutdownOnAnyComponentStopped. It
	// applies to the Python components; a container of bridge components
	// only runs until the node stops (another mode is a warning).
	Shutdown string
	// Restart is "options.restart": RestartNever (the default),
	// RestartAlways or RestartOnFailed. It applies to the Python
	// components; the bridge components always reconnect with backoff
	// (another mode given for a container of them only is a warning).
	// A restart mode that a shutdown mode would never let act (Crossbar's
	// list) is an error.
	Restart string
	// Components is "components", each with its own "transport".
	Components []*Component
}

// WorkerID returns the worker's "id".
func (w *ContainerWorker) WorkerID() string { return w.ID }
func (*ContainerWorker) isWorker()          {}

var _ Worker = (*ContainerWorker)(nil)

// impossibleModes are the restart and shutdown modes that cannot go
// together, as Crossbar lists them: the container shuts down before it
// would restart anything.
var impossibleModes = [][2]string{
	{RestartAlways, ShutdownOnAnyComponentStopped},
	{RestartAlways, ShutdownOnAnyComponentFailed},
	{RestartAlways, ShutdownOnLastComponentStopped},
	{RestartOnFailed, ShutdownOnAnyComponentFailed},
}

func (d *decoder) containerWorker(o *object) *ContainerWorker {
	w := &ContainerWorker{Shutdown: ShutdownManual, Restart: RestartNever}
	w.ID, w.Options = d.workerCommon(o, func(oo *object) {
		w.Shutdown = oo.enum("shutdown", w.Shutdown, "shutdown mode", ShutdownManual,
			ShutdownOnLastComponentStopped, ShutdownOnAnyComponentFailed, ShutdownOnAnyComponentStopped)
		w.Restart = oo.enum("restart", w.Restart, "restart mode", RestartAlways, RestartOnFailed, RestartNever)
		if slices.Contains(impossibleModes, [2]string{w.Restart, w.Shutdown}) {
			d.errorf(oo.at("restart"), "%q cannot go with shutdown mode %q: the container would shut down before it restarts a component", w.Restart, w.Shutdown)
		}
	})
	o.list("components", func(p string, v any) {
		if c := d.component(p, v, true); c != nil {
			w.Components = append(w.Components, c)
		}
	})
	d.bridgeOnlyModes(o, w)
	d.pythonOptionsUsed(o, w.Components, false)
	o.ignored("connections", databaseConnections)
	o.ignored("manhole", pythonOnly)
	o.done()
	return w
}

// bridgeOnlyModes warns about the modes of a container whose components
// are all bridge components: they reconnect until the node stops.
func (d *decoder) bridgeOnlyModes(o *object, w *ContainerWorker) {
	if slices.ContainsFunc(w.Components, (*Component).Python) {
		return
	}
	opts := o.at("options")
	if w.Shutdown != ShutdownManual {
		d.warnf(childPath(opts, "shutdown"), "ignored: the container has no Python component; its bridge components run until the node stops")
	}
	if om, ok := o.m["options"].(map[string]any); ok && om["restart"] != nil && w.Restart != RestartAlways {
		d.warnf(childPath(opts, "restart"), "ignored: the container has no Python component; its bridge components always reconnect with backoff")
	}
}
