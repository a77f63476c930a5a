package config

import (
	"fmt"
	"strconv"
)

// check reports the problems that span several objects: duplicate names,
// listeners on the same address, and references to realms and roles. The
// paths it reports assume every list item decoded (no decode errors).
func (c *Config) check(d *decoder) {
	var listeners []listener
	c.mergeSharedWorkers(d)
	for i, w := range c.Workers {
		wp := "workers[" + strconv.Itoa(i) + "]"
		switch w := w.(type) {
		case *RouterWorker:
			if w.RunsAs == "" {
				w.check(d, wp, &listeners)
			}
		case *ProxyWorker:
			if w.RunsAs == "" {
				w.check(d, wp, &listeners)
			}
		case *TesteeWorker:
			if !w.Options.Disabled {
				checkTesteeEndpoint(d, wp+".transport", w.Transport.Endpoint, &listeners)
			}
		}
	}
	c.checkWorkerIDs(d)
}

func (c *Config) checkWorkerIDs(d *decoder) {
	seen := map[string]bool{}
	for i, w := range c.Workers {
		if id := w.WorkerID(); id != "" {
			if seen[id] {
				d.errorf(fmt.Sprintf("workers[%d].id", i), "duplicate worker id %q", id)
			}
			seen[id] = true
		}
	}
}

func (w *RouterWorker) check(d *decoder, wp string, listeners *[]listener) {
	roles := map[string]bool{"trusted": true}
	realms := map[string]*Realm{}
	for i, r := range w.Realms {
		rp := fmt.Sprintf("%s.realms[%d]", wp, i)
		if realms[r.Name] != nil {
			d.errorf(rp+".name", "duplicate realm %q", r.Name)
		}
		realms[r.Name] = r
		r.checkRoles(d, rp)
		for _, role := range r.Roles {
			roles[role.Name] = true
		}
	}
	checkTransports(d, wp, w.Transports, routerRoles{realms, roles}, listeners, checkProxyLogins)
	for i, c := range w.Components {
		c.checkInRouter(d, fmt.Sprintf("%s.components[%d]", wp, i), realms)
	}
}

// checkTransports checks the transports of the router or proxy worker at
// wp: their listening addresses against the others', their roles and
// bridge services against the realms rr its sessions may join, and each
// with more.
func checkTransports(d *decoder, wp string, ts []Transport, rr routerRoles, listeners *[]listener,
	more func(d *decoder, tp string, t Transport)) {
	for i, t := range ts {
		tp := fmt.Sprintf("%s.transports[%d]", wp, i)
		checkListener(d, tp, t, listeners)
		checkTransportRoles(d, tp, t, rr)
		more(d, tp, t)
		switch t := t.(type) {
		case *WebTransport:
			checkBridgePaths(d, tp+".paths", t.Paths, rr.realms, t.Options.BodyBufferLimit)
			checkDashboardPaths(d, tp+".paths", t.Paths, t.Endpoint)
		case *UniversalTransport:
			if t.Web != nil {
				checkBridgePaths(d, tp+".web.paths", t.Web.Paths, rr.realms, t.Web.Options.BodyBufferLimit)
				checkDashboardPaths(d, tp+".web.paths", t.Web.Paths, t.Endpoint)
			}
		}
	}
}

func (r *Realm) checkRoles(d *decoder, rp string) {
	seen := map[string]bool{}
	for i, role := range r.Roles {
		if seen[role.Name] {
			d.errorf(fmt.Sprintf("%s.roles[%d].name", rp, i), "duplicate role %q in realm %q", role.Name, r.Name)
		}
		seen[role.Name] = true
	}
}

// checkInRouter checks a router component's realm and role.
func (c *Component) checkInRouter(d *decoder, cp string, realms map[string]*Realm) {
	r := realms[c.Realm]
	if r == nil {
		d.errorf(cp+".realm", "realm %q is not defined in this router", c.Realm)
		return
	}
	if c.Role != "trusted" && !r.hasRole(c.Role) {
		hint := ""
		if c.Role == DefaultComponentRole {
			hint = " (the default role, as in Crossbar: define it in the realm, or give the component a \"role\")"
		}
		d.errorf(cp+".role", "role %q is not defined in realm %q%s", c.Role, c.Realm, hint)
	}
}

// listener is a listening endpoint and the path of its transport.
type listener struct {
	path string
	e    ListenEndpoint
}

// checkListener reports a transport that listens where an earlier one does.
func checkListener(d *decoder, tp string, t Transport, seen *[]listener) {
	checkEndpoint(d, tp, listenEndpointOf(t), seen)
}

// checkEndpoint reports an endpoint e of the transport at tp that listens
// where an earlier one does.
func checkEndpoint(d *decoder, tp string, e ListenEndpoint, seen *[]listener) {
	for _, l := range *seen {
		if overlap(l.e, e) && !sharedAcrossWorkers(l, listener{tp, e}) {
			msg := "listens where %s does"
			if l.e.Shared && e.Shared {
				msg += ` ("shared" lets other processes share a port, not two transports of one node)`
			}
			d.errorf(tp+".endpoint", msg, l.path)
			return
		}
	}
	*seen = append(*seen, listener{tp, e})
}

// overlap reports whether two endpoints cannot both listen.
func overlap(a, b ListenEndpoint) bool {
	if a.Type != b.Type {
		return false
	}
	if a.Type == "unix" {
		return a.Path == b.Path
	}
	if a.Port == 0 || a.Port != b.Port {
		return false
	}
	return a.Interface == b.Interface || a.Interface == "" || b.Interface == ""
}
