package config

import "slices"

// RouterWorker is a worker of "type": "router": realms, the transports
// that listen for their sessions, and bridge components running inside.
type RouterWorker struct {
	// ID is "id" (default "": the node numbers workers itself).
	ID string
	// Options is "options".
	Options WorkerOptions
	// Realms is "realms".
	Realms []*Realm
	// Transports is "transports": see Transport.
	Transports []Transport
	// Components is "components": components that join the router from
	// inside: bridge components, and Python components that the worker's
	// Python runner runs.
	Components []*Component
	// RunsAs is the JSON path of an earlier router worker ("workers[0]")
	// that this one is identical to and shares a port with ("shared":
	// true on both endpoints): this worker runs as that one, and package
	// node does not build it (see Config.mergeSharedWorkers). "" for
	// every other worker.
	RunsAs string

	raw map[string]any // the worker's object in the file, to compare
}

// WorkerID returns the worker's "id".
func (w *RouterWorker) WorkerID() string { return w.ID }
func (*RouterWorker) isWorker()          {}

var _ Worker = (*RouterWorker)(nil)

func (d *decoder) routerWorker(o *object) *RouterWorker {
	w := &RouterWorker{raw: o.m}
	w.ID, w.Options = d.workerCommon(o, nil)
	o.list("realms", func(p string, v any) {
		if r := d.realm(p, v); r != nil {
			w.Realms = append(w.Realms, r)
		}
	})
	o.list("transports", func(p string, v any) {
		if t := d.transport(p, v); t != nil {
			w.Transports = append(w.Transports, t)
		}
	})
	o.list("components", func(p string, v any) {
		if c := d.component(p, v, false); c != nil {
			w.Components = append(w.Components, c)
		}
	})
	d.pythonOptionsUsed(o, w.Components, slices.ContainsFunc(w.Transports, hasFunctionAuth) ||
		slices.ContainsFunc(w.Transports, hasPythonWebPath))
	o.ignored("connections", databaseConnections)
	o.ignored("manhole", pythonOnly)
	o.done()
	return w
}
