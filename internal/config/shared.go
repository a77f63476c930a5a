package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// mergeSharedWorkers applies the rule of workers on a shared port. In
// Crossbar, router (or proxy) workers whose endpoints say "shared": true
// listen on one port (SO_REUSEPORT) and the kernel spreads connections
// over them, to use several cores. Go uses every core in one process: a
// worker identical to an earlier one it shares a port with runs as that
// one (RunsAs, with a warning); one that differs is an error that says
// how. Identical means the same object in the file but for "id" and the
// options that only place a process ("cpu_affinity", "title").
func (c *Config) mergeSharedWorkers(d *decoder) {
	for j, w := range c.Workers {
		b, ok := sharerOf(w)
		if !ok || b.disabled {
			continue
		}
		bp := fmt.Sprintf("workers[%d]", j)
		for i := range j {
			a, ok := sharerOf(c.Workers[i])
			if !ok || a.disabled || *a.runsAs != "" {
				continue
			}
			tp, shares := sharedPort(a.transports, b.transports)
			if !shares {
				continue
			}
			ap := fmt.Sprintf("workers[%d]", i)
			if diff := workerDiff(a.raw, b.raw); diff != "" {
				d.errorf(bp+"."+tp+".endpoint", `shares a port with %s ("shared": true), but the workers differ in %q: `+
					`Junction runs identical workers on a shared port as one (Go uses every core in one process), `+
					`and cannot split one port between different workers; give this transport a port of its own`, ap, diff)
			} else {
				*b.runsAs = ap
				d.warnf(bp, "identical to %s and sharing its port: runs as one %s with it "+
					"(Go uses every core in one process, where Crossbar starts a process per worker)", ap, b.kind)
			}
			break
		}
	}
}

// sharer is what the shared-port rule reads and sets of a worker.
type sharer struct {
	kind       string // "router", "proxy"
	transports []Transport
	raw        map[string]any
	runsAs     *string
	disabled   bool
}

// sharerOf returns w's sharer; false for a worker that cannot share a
// port (container, guest, testee).
func sharerOf(w Worker) (sharer, bool) {
	switch w := w.(type) {
	case *RouterWorker:
		return sharer{"router", w.Transports, w.raw, &w.RunsAs, w.Options.Disabled}, true
	case *ProxyWorker:
		return sharer{"proxy", w.Transports, w.raw, &w.RunsAs, w.Options.Disabled}, true
	}
	return sharer{}, false
}

// sharedPort returns the path ("transports[1]") of the first transport of
// b that listens where one of a does, both with "shared": true.
func sharedPort(a, b []Transport) (string, bool) {
	for k, tb := range b {
		eb := listenEndpointOf(tb)
		for _, ta := range a {
			if ea := listenEndpointOf(ta); ea.Shared && eb.Shared && overlap(ea, eb) {
				return fmt.Sprintf("transports[%d]", k), true
			}
		}
	}
	return "", false
}

// sharedAcrossWorkers reports whether two listeners are shared endpoints
// of two different workers: mergeSharedWorkers has judged them.
func sharedAcrossWorkers(a, b listener) bool {
	return a.e.Shared && b.e.Shared && workerOf(a.path) != workerOf(b.path)
}

// workerOf is the worker part of a transport's path ("workers[0]").
func workerOf(tp string) string {
	w, _, _ := strings.Cut(tp, ".")
	return w
}

// placementOptions are the worker options that only say where the
// worker's process runs: they may differ between workers run as one.
var placementOptions = []string{"cpu_affinity", "title"}

// workerDiff returns the first key ("realms", "options.env") in which two
// worker objects differ, ignoring "id" and placementOptions; "" when they
// are identical.
func workerDiff(a, b map[string]any) string {
	if k := firstDiff(a, b, "id", "options"); k != "" {
		return k
	}
	if k := firstDiff(optionsOf(a), optionsOf(b), placementOptions...); k != "" {
		return "options." + k
	}
	return ""
}

// firstDiff returns the first key, in sorted order and not in skip, whose
// values differ between a and b (a key missing from one differs); "" when
// none.
func firstDiff(a, b map[string]any, skip ...string) string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(skip, k) && !reflect.DeepEqual(a[k], b[k]) {
			return k
		}
	}
	return ""
}

// optionsOf is m's "options" object (nil when absent or not an object).
func optionsOf(m map[string]any) map[string]any {
	o, _ := m["options"].(map[string]any)
	return o
}
