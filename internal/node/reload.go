package node

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/junction-wamp/junction/internal/config"
)

// ReloadReport is what Reload did: the changes applied live and those
// that take effect only after a restart, each at the JSON path of what
// changed, in config order.
type ReloadReport struct {
	Applied []Change
	Restart []Change
	// Failed are what could not be applied: a TLS certificate that no
	// longer loads (the old one stays), a component or guest worker that
	// did not start again (it is stopped).
	Failed []Change
}

// Change is one difference between the running config and the new one.
type Change struct {
	Path string // "workers[0].realms[1]"
	What string // "realm \"realm2\" added"
}

// ErrNotRunning is returned by Reload and Join before Start has succeeded and after
// Stop.
var ErrNotRunning = errors.New("node: not running")

// Reload applies cfg, a config already loaded and checked, to the running
// node without a restart. It first builds cfg as New does, without
// starting anything: if that fails (a TLS file that does not load, ...),
// the error is New's and nothing changed. Otherwise it compares cfg with
// the running config and applies what can change live:
//
//   - realms added (AddRealm) and removed (their sessions get GOODBYE
//     wamp.close.close_realm);
//
//   - roles and their permissions (router.UpdateRealm: the sessions of a
//     removed role get GOODBYE junction.close.config_changed, the
//     registrations and subscriptions no longer allowed are revoked, the
//     sessions' kept answers dropped);
//
//   - the static principals, tickets, secrets and keys of a transport's
//     "auth", a router's or a proxy's (the sessions of a removed or
//     changed principal get GOODBYE junction.close.config_changed);
//
//   - a proxy worker's routes and connections (proxy.Relay.SetRoutes:
//     the sessions whose route is gone, or now goes through another
//     connection or one whose config changed, get GOODBYE
//     junction.close.config_changed);
//
//   - the TLS certificates of every listener, read again from their files
//     whether the config changed or not.
//
//   - a web transport's path tree (static, redirect, JSON, node info,
//     WebSocket, long-poll, bridge and proxy services, nested paths):
//     built anew, its services started, swapped in at once for the next
//     requests, then the old tree's services stopped (its bridge
//     sessions leave, its proxies' relayed connections close);
//
//   - components of router and container workers: one that changed is
//     stopped and started again with its new config, one added started,
//     one removed stopped; a Python class component in its worker's
//     running Python runner (a container's restart and shutdown modes do
//     not act on these stops), unless the worker's options changed;
//
//   - guest workers: one that changed is stopped (SIGTERM, as at node
//     stop) and started again, one added started, one removed stopped;
//
//   - container workers added (or enabled) are started, those removed
//     (or disabled) stopped, as at node start and stop; the controller's
//     shutdown triggers count the workers the node then runs.
//
// Everything else that changed (a transport's endpoint or options, a
// proxy worker's transports but their "auth",
// router, proxy and testee workers added or removed, worker options and
// the Python components of a worker whose options changed, realm
// options but their limits, dynamic authenticators and authorizers,
// router links) is
// reported in Restart and left as it runs.
// Sessions on what did not change are not touched. Reloads are
// serialized, and Stop waits for the one under way; ctx bounds the start
// and stop of path services. Safe for concurrent use with everything but
// Start.
func (n *Node) Reload(ctx context.Context, cfg *config.Config) (ReloadReport, error) {
	n.reloadMu.Lock()
	defer n.reloadMu.Unlock()
	n.mu.Lock()
	running := n.state == stateRunning
	n.mu.Unlock()
	if !running {
		return ReloadReport{}, ErrNotRunning
	}
	next, err := New(cfg, Options{Dir: n.dir, Logger: n.log})
	if err != nil {
		return ReloadReport{}, err
	}
	defer next.discard()
	next.joinCluster(n)
	r := &reloader{ctx: ctx, node: n, next: next}
	r.config(n.cfg, cfg)
	r.certificates()
	n.cfg = cfg
	return r.report, nil
}

// discard releases what New built for a node that never starts (its
// cookie stores).
func (n *Node) discard() {
	for _, ru := range n.routers {
		for _, c := range ru.cookies {
			c.store.Close()
		}
	}
}

// reloader compares the running config with the next one and applies
// the difference to node; next is the next config built (never started),
// whose units are looked up by path.
type reloader struct {
	ctx    context.Context // bounds the start and stop of path services
	node   *Node
	next   *Node
	report ReloadReport
}

func (r *reloader) applied(path, format string, a ...any) {
	r.report.Applied = append(r.report.Applied, Change{path, fmt.Sprintf(format, a...)})
}

func (r *reloader) fail(path, format string, a ...any) {
	r.report.Failed = append(r.report.Failed, Change{path, fmt.Sprintf(format, a...)})
}

func (r *reloader) restart(path, format string, a ...any) {
	r.report.Restart = append(r.report.Restart, Change{path, fmt.Sprintf(format, a...)})
}

// config compares two whole configs, worker by worker (by index).
func (r *reloader) config(old, cfg *config.Config) {
	if !same(old.Controller, cfg.Controller) {
		r.restart("controller", "changed")
	}
	for i := range max(len(old.Workers), len(cfg.Workers)) {
		var was, now config.Worker
		if i < len(old.Workers) {
			was = old.Workers[i]
		}
		if i < len(cfg.Workers) {
			now = cfg.Workers[i]
		}
		r.worker(fmt.Sprintf("workers[%d]", i), was, now)
	}
}

// runs reports whether the node builds a router for w.
func runs(w *config.RouterWorker) bool { return !w.Options.Disabled && w.RunsAs == "" }

// routerWorker compares two router workers at path and applies what can
// change live on the running router.
func (r *reloader) routerWorker(path string, old, w *config.RouterWorker) {
	ru, next := r.node.routerAt(path), r.next.routerAt(path)
	if ru == nil || next == nil {
		return // built by neither: nothing runs
	}
	if !same(old.Options, w.Options) {
		r.restart(path+".options", "worker options changed")
	}
	r.components(path, ru, r.runner(path, same(old.Options, w.Options)), old.Components, w.Components)
	r.gates(ru, next)
	r.transports(path, ru, old.Transports, w.Transports)
	r.realms(path, ru, old.Realms, w.Realms)
}

// transports compares the transports of a router worker; their "auth"
// is compared apart (gates). A web transport whose paths alone changed,
// or a key file its paths read (listenerUnit.keyFiles), gets its new path
// tree (webPaths); any other change needs a restart.
func (r *reloader) transports(path string, ru *routerUnit, old, ts []config.Transport) {
	if len(old) != len(ts) {
		r.restart(path+".transports", "%d transports, now %d", len(old), len(ts))
	}
	for i := range min(len(old), len(ts)) {
		tp := fmt.Sprintf("%s.transports[%d]", path, i)
		switch {
		case sameExcept(reflect.ValueOf(old[i]), reflect.ValueOf(ts[i]), authType):
			if l, next := r.node.listenerAt(tp), r.next.listenerAt(tp); l != nil && l.tree != nil && next != nil {
				if f := changedKeyFile(l.keyFiles, next.keyFiles); f != "" {
					r.webPaths(r.ctx, tp, ru, ts[i].(*config.WebTransport), "key file "+f+" changed")
				}
			}
		case pathsOnly(old[i], ts[i]):
			r.webPaths(r.ctx, tp, ru, ts[i].(*config.WebTransport), "paths changed")
		default:
			r.restart(tp, "transport changed (endpoint or options)")
		}
	}
}

// pathsOnly reports whether a and b are web transports that differ in
// their paths only.
func pathsOnly(a, b config.Transport) bool {
	wa, ok1 := a.(*config.WebTransport)
	wb, ok2 := b.(*config.WebTransport)
	if !ok1 || !ok2 {
		return false
	}
	x, y := *wa, *wb
	x.Paths, y.Paths = nil, nil
	return same(x, y)
}

// routerAt returns the router unit of the worker at path, or nil.
func (n *Node) routerAt(path string) *routerUnit {
	i := slices.IndexFunc(n.routers, func(ru *routerUnit) bool { return ru.path == path })
	if i < 0 {
		return nil
	}
	return n.routers[i]
}

// authType is the type of a transport's "auth", compared apart.
var authType = reflect.TypeFor[config.Auth]()

// same reports whether a and b are equal configs; see sameExcept.
func same(a, b any) bool { return sameExcept(reflect.ValueOf(a), reflect.ValueOf(b), nil) }

// sameExcept reports whether a and b are deeply equal, ignoring struct
// fields of type skip (compared apart) and unexported fields (what
// package config derives from the exported ones). A nil slice or map
// equals an empty one.
func sameExcept(a, b reflect.Value, skip reflect.Type) bool {
	if !a.IsValid() || !b.IsValid() {
		return a.IsValid() == b.IsValid()
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameExcept(a.Elem(), b.Elem(), skip)
	case reflect.Struct:
		return sameFields(a, b, skip)
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameExcept(a.Index(i), b.Index(i), skip) {
				return false
			}
		}
		return true
	case reflect.Map:
		return sameMaps(a, b, skip)
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return a.Pointer() == b.Pointer()
	}
	return a.Equal(b)
}

func sameFields(a, b reflect.Value, skip reflect.Type) bool {
	for i := range a.NumField() {
		f := a.Type().Field(i)
		if !f.IsExported() || f.Type == skip {
			continue
		}
		if !sameExcept(a.Field(i), b.Field(i), skip) {
			return false
		}
	}
	return true
}

func sameMaps(a, b reflect.Value, skip reflect.Type) bool {
	if a.Len() != b.Len() {
		return false
	}
	for it := a.MapRange(); it.Next(); {
		v := b.MapIndex(it.Key())
		if !v.IsValid() || !sameExcept(it.Value(), v, skip) {
			return false
		}
	}
	return true
}

// certificates reads every listener's TLS certificate and client CAs
// again, the config changed or not (a renewed certificate keeps its file
// names). One that fails to load stays as it was, reported in Failed.
func (r *reloader) certificates() {
	for _, o := range r.node.certs {
		if err := o.Reload(); err != nil {
			r.report.Failed = append(r.report.Failed, Change{o.CertFile, err.Error()})
			continue
		}
		if len(o.ClientCAFiles) > 0 {
			r.applied(o.CertFile, "TLS certificate and client CAs read again")
			continue
		}
		r.applied(o.CertFile, "TLS certificate read again")
	}
}
