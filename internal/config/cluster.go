package config

import (
	"net"
	"net/url"
	"strconv"
	"time"
)

// Cluster is "controller.cluster", a Junction extension: the node is one
// member of a cluster of nodes that serve the same realms as one router,
// linked over NATS (docs/cluster.md).
type Cluster struct {
	// Name is "name" (required): the cluster's name, [A-Za-z0-9_-]. Every
	// NATS subject and bucket carries it, so clusters can share a NATS.
	Name string
	// Node is "node": this node's name, unique among the live members
	// (default "": the host name).
	Node string
	// Lease is "lease" (seconds, 2..3600, default 3): a member not heard
	// for this long is lost; a node that hears fewer than a majority of
	// the members it knew for this long is isolated.
	Lease time.Duration
	// OnIsolation is "on_isolation": "fence" (default: an isolated node
	// reports every other member lost, reports not ready and closes its
	// sessions) or "serve" (it serves on).
	OnIsolation string
	// NATS is "nats" (required).
	NATS ClusterNATS
}

// The values of "on_isolation".
const (
	IsolationFence = "fence"
	IsolationServe = "serve"
)

// ClusterNATS is "controller.cluster.nats": exactly one of Embedded and
// Servers.
type ClusterNATS struct {
	// Embedded is "embedded": a NATS server runs inside the node.
	Embedded *EmbeddedNATS
	// Servers is "servers" with its credentials: an external NATS cluster.
	Servers *ExternalNATS
}

// EmbeddedNATS is "nats.embedded".
type EmbeddedNATS struct {
	// Listen is "listen" (required): host:port where this node's NATS
	// server accepts routes from the other nodes. A host other than a
	// loopback address needs TLS or RouteUser.
	Listen string
	// Routes is "routes" (required): the other nodes' listen addresses,
	// nats://host:port (a node may list itself).
	Routes []string
	// TLS is "tls": TLS on the routes, both ways (key, certificate, and
	// ca_certificates to verify the other nodes).
	TLS *ServerTLS
	// RouteUser and RoutePassword are "route_user" and "route_password"
	// (${ENV} allowed): required of every route, and sent on this node's.
	RouteUser, RoutePassword string
}

// ExternalNATS is "nats.servers" and the keys beside it.
type ExternalNATS struct {
	// URLs is "servers": nats://host:port or tls://host:port.
	URLs []string
	// Credentials is "credentials": a .creds file (JWT and seed).
	Credentials string
	// Token is "token"; User and Password are "user" and "password"
	// (${ENV} allowed). At most one way to log in.
	Token          string
	User, Password string
	// TLS is "tls": the CA to trust and a client certificate.
	TLS *ClientTLS
}

// cluster decodes "controller.cluster".
func (d *decoder) cluster(path string, v any) *Cluster {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	c := &Cluster{}
	c.Name = o.reqValidStr("name", clusterName, "invalid cluster name %q: want letters, digits, '_' and '-'")
	if o.has("node") {
		c.Node = o.validStr("node", "", nodeName, "invalid node name %q: want 1 to 200 bytes, no spaces")
	}
	c.Lease = time.Duration(o.integer("lease", 3, 2, 3600)) * time.Second
	c.OnIsolation = o.enum("on_isolation", IsolationFence, "isolation mode", IsolationFence, IsolationServe)
	if n, ok := o.reqChild("nats"); ok {
		c.NATS = d.clusterNATS(n)
	}
	o.done()
	return c
}

// clusterNATS decodes "nats": "embedded", or "servers" with its keys.
func (d *decoder) clusterNATS(o *object) ClusterNATS {
	var n ClusterNATS
	emb, hasEmb := o.child("embedded")
	switch {
	case hasEmb && o.has("servers"):
		d.errorf(o.at("servers"), `"servers" and "embedded" exclude each other`)
		o.skip()
	case hasEmb:
		n.Embedded = d.embeddedNATS(emb)
	case o.has("servers"):
		n.Servers = d.externalNATS(o)
	case o.has("embedded"): // null
		d.errorf(o.at("embedded"), "must be an object, not null")
	default:
		d.errorf(o.path, `want "embedded" or "servers"`)
	}
	o.done()
	return n
}

func (d *decoder) embeddedNATS(o *object) *EmbeddedNATS {
	e := &EmbeddedNATS{}
	e.Listen = o.reqValidStr("listen", validListen, "invalid listen address %q: want host:port, port 1..65535")
	if !o.has("routes") {
		o.get("routes")
		o.required("routes")
	}
	e.Routes = o.strList("routes")
	for i, r := range e.Routes {
		if msg := checkRoute(r); msg != "" {
			d.errorf(o.at("routes")+"["+itoa(i)+"]", "%s", msg)
		}
	}
	if o.has("routes") && len(e.Routes) == 0 {
		d.errorf(o.at("routes"), "want at least one node's address")
	}
	if v, ok := o.get("tls"); ok {
		e.TLS = d.serverTLS(o.at("tls"), v)
	}
	e.RouteUser = o.str("route_user", "")
	e.RoutePassword = o.str("route_password", "")
	switch {
	case o.has("route_user") != o.has("route_password"):
		d.errorf(o.path, `"route_user" and "route_password" go together`)
	case e.Listen != "" && validListen(e.Listen) && !loopbackListen(e.Listen) && e.TLS == nil && !o.has("route_user"):
		d.errorf(o.at("listen"), "%q is reachable from other hosts: secure the routes with \"tls\" or \"route_user\" and \"route_password\"", e.Listen)
	}
	o.done()
	return e
}

func (d *decoder) externalNATS(o *object) *ExternalNATS {
	x := &ExternalNATS{URLs: o.strList("servers")}
	if len(x.URLs) == 0 {
		d.errorf(o.at("servers"), "want at least one server")
	}
	for i, s := range x.URLs {
		if msg := checkServerURL(s); msg != "" {
			d.errorf(o.at("servers")+"["+itoa(i)+"]", "%s", msg)
		}
	}
	x.Credentials = o.str("credentials", "")
	x.Token = o.str("token", "")
	x.User = o.str("user", "")
	x.Password = o.str("password", "")
	ways := 0
	for _, s := range []string{x.Credentials, x.Token, x.User} {
		if s != "" {
			ways++
		}
	}
	switch {
	case ways > 1:
		d.errorf(o.path, `one of "credentials", "token" and "user", not %d`, ways)
	case x.Password != "" && x.User == "":
		d.errorf(o.at("password"), `needs "user"`)
	}
	if v, ok := o.get("tls"); ok {
		x.TLS = d.clientTLS(o.at("tls"), v)
	}
	return x
}

// clusterName reports whether s is a cluster name: [A-Za-z0-9_-]+.
func clusterName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// nodeName reports whether s can name a node.
func nodeName(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// validListen reports whether s is host:port with a port 1..65535.
func validListen(s string) bool {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return false
	}
	p, err := strconv.Atoi(port)
	return err == nil && p >= 1 && p <= 65535
}

// loopbackListen reports whether listen address s is on a loopback
// address ("localhost" included).
func loopbackListen(s string) bool {
	host, _, _ := net.SplitHostPort(s)
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkRoute returns what is wrong with route address s ("" if nothing).
func checkRoute(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Scheme != "nats" && u.Scheme != "tls":
		return "want nats://host:port, not " + strconv.Quote(s)
	case u.User != nil:
		return `credentials go in "route_user" and "route_password", not in the address`
	case !validListen(u.Host) || u.Path != "" && u.Path != "/":
		return "want nats://host:port, not " + strconv.Quote(s)
	}
	return ""
}

// checkServerURL returns what is wrong with NATS server URL s.
func checkServerURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "nats" && u.Scheme != "tls" || !validListen(u.Host) {
		return "want nats://host:port or tls://host:port, not " + strconv.Quote(s)
	}
	if u.User != nil {
		return `credentials go in "user" and "password" or "token", not in the address`
	}
	return ""
}
