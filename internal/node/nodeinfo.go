package node

import (
	"github.com/junction-wamp/junction/internal/web"
	"github.com/junction-wamp/junction/wamp"
)

// Info returns what the "nodeinfo" page shows: the version, the start
// time, every realm (in config order) with its live session count, and the listeners. Safe
// for concurrent use.
func (n *Node) Info() web.NodeInfo {
	info := web.NodeInfo{Version: BuildVersion(), Started: n.Started()}
	for _, r := range n.routers {
		stats := r.router.Stats()
		for _, name := range r.realmNames() {
			info.Realms = append(info.Realms, web.RealmInfo{Name: name, Sessions: stats.Realms[wamp.URI(name)].Sessions})
		}
	}
	for _, l := range n.Listeners() {
		addr := l.Address
		if l.Network == "unix" {
			addr = "unix:" + addr
		}
		info.Listeners = append(info.Listeners, web.ListenerInfo{Type: l.Type, Address: addr})
	}
	return info
}
