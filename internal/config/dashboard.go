package config

import (
	"net/netip"
	"strings"
)

// DashboardService is a path service of "type": "dashboard" (a Junction
// extension): the live page an operator keeps open, with the sessions of
// each realm (authids and peer addresses among them). Unlike "nodeinfo",
// which Crossbar users expose publicly, it is for the operator only: with
// no RequireIP it serves loopback clients only, and a transport that
// listens beyond loopback must name the networks allowed to see it.
type DashboardService struct {
	// RequireIP is "options.require_ip": the client addresses or networks
	// served, as a bridge service's ("10.0.0.0/8", "::1"); others get 403.
	// Empty means loopback only (127.0.0.0/8 and ::1), and is an error on
	// a transport whose endpoint is TCP on an interface other than a
	// loopback address. Entries are parsed when the node is built.
	RequireIP []string
}

// PathType returns "dashboard".
func (*DashboardService) PathType() string { return "dashboard" }

func (d *decoder) dashboardService(o *object) *DashboardService {
	return &DashboardService{RequireIP: requireIPOption(o)}
}

// checkDashboardPaths reports each dashboard of a web transport's paths
// (at pp) without options.require_ip when the transport's endpoint e is
// reachable from beyond the host: the dashboard shows who is connected,
// from where, under which authid.
func checkDashboardPaths(d *decoder, pp string, ps Paths, e ListenEndpoint) {
	if loopbackOnly(e) {
		return
	}
	for _, k := range sortedKeysOf(ps) {
		sp := childPath(pp, k)
		switch s := ps[k].(type) {
		case *DashboardService:
			if len(s.RequireIP) == 0 {
				d.errorf(sp+".options.require_ip", "required: the dashboard shows sessions' authids and peer addresses, "+
					"and this transport listens on %s, beyond loopback; name the networks allowed to see it "+
					"(such as [\"127.0.0.1\", \"10.0.0.0/8\"]), or listen on \"interface\": \"127.0.0.1\"", listensOn(e))
			}
		case *PathTree:
			checkDashboardPaths(d, sp+".paths", s.Paths, e)
		}
	}
}

// loopbackOnly reports whether only this host can reach e: a Unix socket,
// or TCP on a loopback interface address.
func loopbackOnly(e ListenEndpoint) bool {
	if e.Type == "unix" {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(e.Interface, "[]"))
	return err == nil && a.IsLoopback()
}

// listensOn describes a TCP endpoint's interface for a message.
func listensOn(e ListenEndpoint) string {
	if e.Interface == "" {
		return "every interface"
	}
	return "interface " + e.Interface
}
