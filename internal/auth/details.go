package auth

import (
	"net/netip"
	"strconv"

	"github.com/junction-wamp/junction/wamp"
)

// What a dynamic authenticator or authorizer is told of a session, in the
// shape Crossbar gives it, so that authenticators written for Crossbar
// read it unchanged.

// pendingDetails are the details an authenticator is given about a
// session logging in with method: its transport, the session ID it will
// have, the method and the HELLO's authextra (null when none). With
// identity, also the HELLO's authid and authrole (null when absent), as
// Crossbar's wampcra and cryptosign give them.
func pendingDetails(req *Request, method string, identity bool) wamp.Dict {
	d := wamp.Dict{
		"transport":        transportDetails(req.Peer),
		"session":          uint64(req.Session),
		wamp.KeyAuthMethod: method,
		wamp.KeyAuthExtra:  req.Details[wamp.KeyAuthExtra],
	}
	if identity {
		d[wamp.KeyAuthID] = nullIfEmpty(req.AuthID)
		d[wamp.KeyAuthRole] = req.Details[wamp.KeyAuthRole]
	}
	return d
}

// sessionDetails are the details an authorizer is given about a joined
// session (Crossbar's session_details): who it is and its transport.
func sessionDetails(id *Identity) wamp.Dict {
	return wamp.Dict{
		"session":            uint64(id.Session),
		wamp.KeyAuthID:       id.AuthID,
		wamp.KeyAuthRole:     id.AuthRole,
		wamp.KeyAuthMethod:   id.AuthMethod,
		wamp.KeyAuthProvider: id.AuthProvider,
		wamp.KeyAuthExtra:    id.AuthExtra,
		"transport":          transportDetails(id.Peer),
	}
}

// transportDetails describe a session's connection as Crossbar's
// transport_info does: type, protocol ("wamp.2.json"), peer
// ("tcp4:127.0.0.1:53114"), and for WebSocket the upgrade request's
// headers, when the transport kept them, and the tracking cookie (null
// without cookie tracking); over TLS, the client's certificate
// ("client_cert", null when it sent none).
func transportDetails(p wamp.PeerInfo) wamp.Dict {
	d := wamp.Dict{"type": p.Transport, "protocol": nil, "peer": peerName(p.RemoteAddr)}
	if p.Serializer != "" {
		d["protocol"] = "wamp.2." + p.Serializer
	}
	if p.Transport == "websocket" {
		h := make(wamp.Dict, len(p.HTTPHeaders))
		for k, v := range p.HTTPHeaders {
			h[k] = v
		}
		d["http_headers_received"] = h
		d["cbtid"] = nullIfEmpty(p.CBTID)
	}
	if p.TLS {
		d["client_cert"] = certDetails(p.ClientCert)
	}
	return d
}

// peerName writes a remote address as Twisted does: "tcp4:HOST:PORT",
// "tcp6:HOST:PORT", or "unix:PATH" for anything else; null for none (an
// in-process peer).
func peerName(addr string) any {
	if addr == "" {
		return nil
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return "unix:" + addr
	}
	ip, port := ap.Addr().Unmap(), strconv.Itoa(int(ap.Port()))
	if ip.Is4() {
		return "tcp4:" + ip.String() + ":" + port
	}
	return "tcp6:" + ip.String() + ":" + port
}

// nullIfEmpty is s, or null for "": how an absent authid reaches the
// authenticator.
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
