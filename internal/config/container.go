package config

// ContainerWorker is a worker of "type": "container": components that
// connect to a router over a transport.
type ContainerWorker struct {
	// ID is "id" (default "").
	ID string
	// Options is "options".
	Options WorkerOptions
	// Shutdown is "options.shutdown": when the container stops, one of
	// "shutdown-manual", "shutdown-on-last-component-stopped",
	// "shutdown-on-any-component-failed", "shutdown-on-any-component-stopped"
	// (default "shutdown-manual"). A Junction container always runs until
	// the node stops (its components reconnect), which is
	// "shutdown-manual": any other mode is ignored with a warning.
	Shutdown string
	// Restart is "options.restart": "restart-always", "restart-on-failed" or
	// "restart-never" (default "restart-never"). Junction's components
	// always reconnect with backoff, which is "restart-always": any other
	// mode given is ignored with a warning.
	Restart string
	// Components is "components", each with its own "transport".
	Components []*Component
}

// WorkerID returns the worker's "id".
func (w *ContainerWorker) WorkerID() string { return w.ID }
func (*ContainerWorker) isWorker()          {}

var _ Worker = (*ContainerWorker)(nil)

func (d *decoder) containerWorker(o *object) *ContainerWorker {
	w := &ContainerWorker{Shutdown: "shutdown-manual", Restart: "restart-never"}
	w.ID, w.Options = d.workerCommon(o, func(oo *object) {
		w.Shutdown = oo.enum("shutdown", w.Shutdown, "shutdown mode", "shutdown-manual",
			"shutdown-on-last-component-stopped", "shutdown-on-any-component-failed",
			"shutdown-on-any-component-stopped")
		oo.ignoredIf(w.Shutdown != "shutdown-manual", "shutdown", ": the container runs until the node stops; its components reconnect")
		w.Restart = oo.enum("restart", w.Restart, "restart mode", "restart-always", "restart-on-failed", "restart-never")
		oo.ignoredIf(w.Restart != "restart-always", "restart", ": components always reconnect with backoff")
	})
	o.list("components", func(p string, v any) {
		if c := d.component(p, v, true); c != nil {
			w.Components = append(w.Components, c)
		}
	})
	o.unsupported("connections", " (database connections)")
	o.ignored("manhole", pythonOnly)
	o.done()
	return w
}
