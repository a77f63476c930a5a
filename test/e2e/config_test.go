package e2e_test

import "encoding/base64"

// obj is a JSON object of a node's config (Crossbar's format).
type obj = map[string]any

const realm = "realm1"

// Signing of the signed caller and publisher paths (one key: they share a
// nonce cache), and the webhooks' provider secrets.
const (
	signKey    = "e2e-key"
	signSecret = "e2e-secret"
	hookSecret = "e2e-hook-secret"
)

// standardSecret is the Standard Webhooks secret: "whsec_" and the key in
// Base64.
var (
	standardKey    = []byte("e2e standard webhooks key")
	standardSecret = "whsec_" + base64.StdEncoding.EncodeToString(standardKey)
)

// providers are the webhook signature schemes; each has a webhook path
// "hook-NAME" pinned to it, publishing on com.e2e.hook.NAME.
var providers = []string{"github", "gitlab", "stripe", "slack", "shopify", "standard"}

// shortCallTimeout is the call_timeout of the path "call-short" (ms).
const shortCallTimeout = 500

// routerConfig is one router worker with realm1 and one web transport on
// 127.0.0.1:port (0: any) with the WebSocket path "ws" (anonymous, role
// "peer") and paths. The roles:
//   - peer: call, register, publish, subscribe under com.e2e.
//   - bridge: call and publish under com.e2e.
//   - restricted: call under com.e2e.public. only.
func routerConfig(port int, paths obj) obj {
	all := obj{"ws": obj{"type": "websocket", "auth": obj{"anonymous": obj{"type": "static", "role": "peer"}}}}
	for k, v := range paths {
		all[k] = v
	}
	roles := []obj{
		role("peer", "com.e2e.", obj{"call": true, "register": true, "publish": true, "subscribe": true}),
		role("bridge", "com.e2e.", obj{"call": true, "publish": true}),
		role("restricted", "com.e2e.public.", obj{"call": true}),
	}
	return obj{"version": 2, "workers": []obj{{
		"type":   "router",
		"realms": []obj{{"name": realm, "roles": roles}},
		"transports": []obj{{
			"type":     "web",
			"endpoint": obj{"type": "tcp", "interface": "127.0.0.1", "port": port},
			"paths":    all,
		}},
	}}}
}

func role(name, prefix string, allow obj) obj {
	return obj{"name": name, "permissions": []obj{{"uri": prefix, "match": "prefix", "allow": allow}}}
}

// bridgePaths are the HTTP bridge's path services of the main node.
func bridgePaths() obj {
	signing := obj{"key": signKey, "secret": signSecret, "timestamp_delta_limit": 300}
	paths := obj{
		"call":            bridgeService("caller", "bridge", nil),
		"call-short":      bridgeService("caller", "bridge", obj{"call_timeout": shortCallTimeout}),
		"call-restricted": bridgeService("caller", "restricted", nil),
		"call-signed":     bridgeService("caller", "bridge", signing),
		"publish":         bridgeService("publisher", "bridge", nil),
		"publish-signed":  bridgeService("publisher", "bridge", signing),
	}
	for _, p := range providers {
		secret := hookSecret
		if p == "standard" {
			secret = standardSecret
		}
		paths["hook-"+p] = bridgeService("webhook", "bridge", obj{
			"topic": "com.e2e.hook." + p, "provider": p, "provider_secret": secret,
		})
	}
	return paths
}

func bridgeService(typ, role string, options obj) obj {
	s := obj{"type": typ, "realm": realm, "role": role}
	if options != nil {
		s["options"] = options
	}
	return s
}

// containerConfig is a container worker whose components connect to the
// router at 127.0.0.1:routerPort over WebSocket (path "ws").
func containerConfig(routerPort int, components ...obj) obj {
	for _, c := range components {
		c["type"], c["realm"] = "class", realm
		c["transport"] = obj{
			"type":     "websocket",
			"endpoint": obj{"type": "tcp", "host": "127.0.0.1", "port": routerPort},
			"url":      "ws://127.0.0.1/ws",
		}
	}
	return obj{"version": 2, "workers": []obj{{"type": "container", "components": components}}}
}
