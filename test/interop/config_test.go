package interop_test

// obj is a JSON object of the node's config.
type obj = map[string]any

// The node's transports, in the order of the config's "transports": the log
// names them workers[0].transports[N].
const (
	webTransport       = iota // web: a WebSocket path per authentication method
	rsAnonTransport           // rawsocket: anonymous
	rsAuthTransport           // rawsocket: ticket, wampcra and cryptosign
	backendTransport          // web on a Unix socket: the backend of wsProxyPath
	universalTransport        // universal: RawSocket, the WebSocket paths of wsPaths, web
	numTransports
)

// wsProxyPath is the web transport's WebSocket reverse proxy to the
// anonymous WebSocket path of backendTransport.
const wsProxyPath = "ws-proxy"

// wsPaths are the web transport's WebSocket paths, by authentication method.
var wsPaths = map[string]string{
	"anonymous":  "ws",
	"ticket":     "ws-ticket",
	"wampcra":    "ws-cra",
	"cryptosign": "ws-cryptosign",
}

// The realm store's event histories (py/scenario.py --role history): the
// last historyLimit events of historyTopic, and those of every topic under
// historyPrefix.
const (
	historyTopic  = "com.interop.history.counter"
	historyLimit  = 3
	historyPrefix = "com.interop.history.sensor."
)

// nodeConfig is one router worker with realm1, whose roles anonymous, user
// and device may do anything under com.interop. and call the subscription
// meta procedures (wamp.subscription.), with the event histories above,
// and the transports above, all on 127.0.0.1 port 0. Role anonymous may
// also subscribe to the URI "" itself, which is what a subscription to
// the empty prefix (every topic) is authorized against.
func nodeConfig() obj {
	roles := []obj{}
	for _, name := range []string{"anonymous", "user", "device"} {
		perms := []obj{{
			"uri": "com.interop.", "match": "prefix",
			"allow": obj{"call": true, "register": true, "publish": true, "subscribe": true},
		}, {
			"uri": "wamp.subscription.", "match": "prefix", "allow": obj{"call": true},
		}}
		if name == "anonymous" {
			perms = append(perms, obj{"uri": "", "match": "exact", "allow": obj{"subscribe": true}})
		}
		roles = append(roles, obj{"name": name, "permissions": perms})
	}
	store := obj{"type": "memory", "event-history": []obj{
		{"uri": historyTopic, "match": "exact", "limit": historyLimit},
		{"uri": historyPrefix, "match": "prefix"},
	}}
	paths := obj{}
	for method, path := range wsPaths {
		// compression: autobahn-js (Node's ws module) accepts
		// permessage-deflate when offered; autobahn-python offers none.
		paths[path] = obj{"type": "websocket", "auth": authConfig(method),
			"options": obj{"compression": obj{"deflate": obj{"request_max_window_bits": 12, "max_window_bits": 13}}}}
	}
	paths[wsProxyPath] = obj{"type": "websocket-reverseproxy", "backend": obj{"type": "websocket",
		"endpoint": obj{"type": "unix", "path": "backend.sock"}, "url": "ws://localhost/ws"}}
	transports := make([]obj, numTransports)
	transports[webTransport] = obj{"type": "web", "endpoint": endpoint(), "paths": paths}
	transports[backendTransport] = obj{"type": "web", "endpoint": obj{"type": "unix", "path": "backend.sock"},
		"paths": obj{"ws": obj{"type": "websocket", "auth": authConfig("anonymous")}}}
	transports[rsAnonTransport] = obj{"type": "rawsocket", "endpoint": endpoint(), "auth": authConfig("anonymous")}
	transports[rsAuthTransport] = obj{"type": "rawsocket", "endpoint": endpoint(),
		"auth": merge(authConfig("ticket"), authConfig("wampcra"), authConfig("cryptosign"))}
	transports[universalTransport] = universalConfig()
	return obj{"version": 2, "workers": []obj{{
		"type":       "router",
		"realms":     []obj{{"name": realm, "roles": roles, "store": store}},
		"transports": transports,
	}}}
}

// universalConfig is a universal transport: RawSocket with every
// authentication method, a WebSocket path per method (those of wsPaths),
// and a web path.
func universalConfig() obj {
	ws := obj{}
	for method, path := range wsPaths {
		ws[path] = obj{"type": "websocket", "auth": authConfig(method)}
	}
	return obj{"type": "universal", "endpoint": endpoint(),
		"rawsocket": obj{"auth": merge(authConfig("anonymous"), authConfig("ticket"), authConfig("wampcra"), authConfig("cryptosign"))},
		"websocket": ws,
		"web":       obj{"paths": obj{"info": obj{"type": "json", "value": obj{"hello": "world"}}}}}
}

func endpoint() obj { return obj{"type": "tcp", "interface": "127.0.0.1", "port": 0} }

// authConfig is the "auth" of one method, with the principals of authCases.
func authConfig(method string) obj {
	switch method {
	case "ticket":
		return obj{"ticket": obj{"type": "static", "principals": obj{
			ticket.authid: obj{"ticket": ticket.secret, "role": ticket.wantRole},
		}}}
	case "wampcra":
		return obj{"wampcra": obj{"type": "static", "users": obj{
			wampcra.authid: obj{"secret": wampcra.secret, "role": wampcra.wantRole},
			wampcraSalted.authid: obj{"secret": wampcraSalted.secret, "role": wampcraSalted.wantRole,
				"salt": carolSalt, "iterations": carolIterations, "keylen": carolKeyLen},
		}}}
	case "cryptosign":
		return obj{"cryptosign": obj{"type": "static", "principals": obj{
			cryptosign.authid: obj{"authorized_keys": []string{publicKeyHex(cryptosign.secret)}, "role": cryptosign.wantRole},
		}}}
	}
	return obj{"anonymous": obj{"type": "static", "role": anonymous.wantRole}}
}

// merge returns the union of the objects' keys.
func merge(objs ...obj) obj {
	out := obj{}
	for _, o := range objs {
		for k, v := range o {
			out[k] = v
		}
	}
	return out
}
