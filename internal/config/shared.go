package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// mergeSharedWorkers applies the rule of workers on a shared port. In
// Crossbar, router workers whose endpoints say "shared": true listen on
// one port (SO_REUSEPORT) and the kernel spreads connections over them, to
// use several cores. Go uses every core in one process: a router worker
// identical to an earlier one it shares a port with runs as that one
// (RunsAs, with a warning); one that differs is an error that says how.
// Identical means the same object in the file but for "id" and the
// options that only place a process ("cpu_affinity", "title").
func (c *Config) mergeSharedWorkers(d *decoder) {
	for j, w := range c.Workers {
		b, ok := w.(*RouterWorker)
		if !ok || b.Options.Disabled {
			continue
		}
		bp := fmt.Sprintf("workers[%d]", j)
		for i := range j {
			a, ok := c.Workers[i].(*RouterWorker)
			if !ok || a.Options.Disabled || a.RunsAs != "" {
				continue
			}
			tp, shares := sharedPort(a, b)
			if !shares {
				continue
			}
			ap := fmt.Sprintf("workers[%d]", i)
			if diff := workerDiff(a.raw, b.raw); diff != "" {
				d.errorf(bp+"."+tp+".endpoint", `shares a port with %s ("shared": true), but the workers differ in %q: `+
					`Junction runs identical workers on a shared port as one router (Go uses every core in one process), `+
					`and cannot split one port between different routers; give this transport a port of its own`, ap, diff)
			} else {
				b.RunsAs = ap
				d.warnf(bp, "identical to %s and sharing its port: runs as one router with it "+
					"(Go uses every core in one process, where Crossbar starts a process per worker)", ap)
			}
			break
		}
	}
}

// sharedPort returns the path ("transports[1]") of the first transport of
// b that listens where one of a does, both with "shared": true.
func sharedPort(a, b *RouterWorker) (string, bool) {
	for k, tb := range b.Transports {
		eb := listenEndpointOf(tb)
		for _, ta := range a.Transports {
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
