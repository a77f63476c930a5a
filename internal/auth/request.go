package auth

import (
	"errors"

	"github.com/junction-wamp/junction/wamp"
)

// HelloRequest reads what an authenticator sees of h: its realm, authid
// and authmethods (["anonymous"] when it names none), for the session
// that will have ID session, over peer. An authid or authmethods of the
// wrong type is an error, a protocol violation of the client's.
func HelloRequest(h *wamp.Hello, session wamp.ID, peer wamp.PeerInfo) (*Request, error) {
	req := &Request{Realm: h.Realm, Session: session, Details: h.Details, Peer: peer}
	if v := h.Details[wamp.KeyAuthID]; v != nil {
		var ok bool
		if req.AuthID, ok = v.(string); !ok {
			return nil, errors.New("HELLO.Details.authid must be a string")
		}
	}
	v := h.Details[wamp.KeyAuthMethods]
	if v == nil {
		req.AuthMethods = []string{MethodAnonymous}
		return req, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, errors.New("HELLO.Details.authmethods must be a list")
	}
	for _, m := range l {
		s, ok := m.(string)
		if !ok {
			return nil, errors.New("HELLO.Details.authmethods must be strings")
		}
		req.AuthMethods = append(req.AuthMethods, s)
	}
	return req, nil
}

// Pick returns the first of auths whose method comes first among req's
// authmethods and that applies to req (see Applies); nil when none.
func Pick(auths []Authenticator, req *Request) Authenticator {
	for _, m := range req.AuthMethods {
		for _, a := range auths {
			if a.Method() == m && Applies(a, req) {
				return a
			}
		}
	}
	return nil
}
