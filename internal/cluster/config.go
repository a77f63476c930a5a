package cluster

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"
)

// Defaults of Config.
const (
	DefaultLease     = 3 * time.Second
	DefaultHeartbeat = time.Second
)

// Isolation is what a node does while it is isolated (it hears fewer
// than a majority of the members it knew).
type Isolation uint8

const (
	// Fence reports every other member lost, so that the realms stop
	// sending work to them, and reports the node not ready.
	Fence Isolation = iota
	// Serve keeps the membership as it was and serves on.
	Serve
)

// Config is one node's view of its cluster.
type Config struct {
	// Name is the cluster's name, [A-Za-z0-9_-]: every subject and bucket
	// carries it.
	Name string
	// Node is this node's name, unique among the live members.
	Node string
	// Lease is how long a member stays alive without a heartbeat
	// (DefaultLease when zero).
	Lease time.Duration
	// Heartbeat is the interval between two heartbeats (DefaultHeartbeat
	// when zero); tests shorten it with Lease.
	Heartbeat time.Duration
	// OnIsolation is what the node does while isolated.
	OnIsolation Isolation
	// ConfigHash is a digest of the node's realm, role and auth config,
	// sent with every heartbeat: a member whose hash differs is logged.
	ConfigHash string
	// Exactly one of Embedded and External is set.
	Embedded *Embedded
	External *External
}

// Embedded runs a nats-server inside the node, routed to the other
// nodes' servers. Its client port is bound to 127.0.0.1 with a random
// user and password made at every start and never written out, so no
// other process can reach the cluster's subjects.
type Embedded struct {
	// Listen is where the server accepts routes from the other nodes
	// (host:port; port 0 picks one). Empty with no Routes: a cluster of
	// one node, with no route port.
	Listen string
	// Routes are the other nodes' Listen addresses (nats://host:port); a
	// node may list itself.
	Routes []string
	// TLS, when set, secures the routes (both ways).
	TLS *tls.Config
	// RouteUser and RoutePassword, when set, are required of every route
	// and sent on the routes this node opens.
	RouteUser, RoutePassword string
	// Replicas of the KV buckets; zero means min(3, nodes configured),
	// the nodes configured being this one and its Routes.
	Replicas int
	// Link, when set, carries the node's connection to its server, so
	// that a test can cut the node off and heal it (clustertest.Cut).
	Link *Link
}

// External reaches a NATS cluster run apart from the nodes.
type External struct {
	Servers []string // nats://host:port or tls://host:port
	// Credentials is a .creds file (JWT and seed); Token, or User and
	// Password, are the other ways to log in.
	Credentials    string
	Token          string
	User, Password string
	TLS            *tls.Config
	// Replicas of the KV buckets; zero means min(3, len(Servers)).
	Replicas int
}

// ErrNameTaken is returned by Start when a live member already has the
// node's name.
var ErrNameTaken = errors.New("cluster: node name taken by a live member")

// withDefaults returns c with its zero durations set, or an error naming
// the field that is wrong.
func (c Config) withDefaults() (Config, error) {
	if c.Lease == 0 {
		c.Lease = DefaultLease
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	switch {
	case !validName(c.Name):
		return c, fmt.Errorf("cluster: name %q: want [A-Za-z0-9_-], at least one", c.Name)
	case c.Node == "":
		return c, errors.New("cluster: node name is empty")
	case len(c.Node) > 200:
		return c, errors.New("cluster: node name longer than 200 bytes")
	case c.Lease < 0 || c.Heartbeat < 0 || c.Heartbeat >= c.Lease:
		return c, fmt.Errorf("cluster: heartbeat %v must be positive and shorter than the lease %v", c.Heartbeat, c.Lease)
	case (c.Embedded == nil) == (c.External == nil):
		return c, errors.New("cluster: want exactly one of embedded and external NATS")
	case c.External != nil && len(c.External.Servers) == 0:
		return c, errors.New("cluster: external NATS without servers")
	case c.Embedded != nil && c.Embedded.Listen == "" && len(c.Embedded.Routes) > 0:
		return c, errors.New("cluster: embedded routes without a listen address")
	}
	if c.Embedded != nil {
		for _, r := range c.Embedded.Routes {
			if _, err := routeURL(r); err != nil {
				return c, err
			}
		}
	}
	return c, nil
}

// routeURL parses one route address.
func routeURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("cluster: route %q: %w", s, err)
	}
	if u.Scheme != "nats" && u.Scheme != "nats-route" && u.Scheme != "tls" {
		return nil, fmt.Errorf("cluster: route %q: want nats://host:port", s)
	}
	if _, _, err := net.SplitHostPort(u.Host); err != nil {
		return nil, fmt.Errorf("cluster: route %q: %w", s, err)
	}
	return u, nil
}

// replicas is the KV replica count of the config.
func (c Config) replicas() int {
	if c.External != nil {
		if c.External.Replicas > 0 {
			return c.External.Replicas
		}
		return min(3, len(c.External.Servers))
	}
	if c.Embedded.Replicas > 0 {
		return c.Embedded.Replicas
	}
	return min(3, len(c.Embedded.Routes)+1)
}
