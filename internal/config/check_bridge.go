package config

import "slices"

// checkBridgePaths reports each caller, publisher, webhook and event
// stream of a web transport's paths whose realm the router does not
// define, or whose role that realm does not define (its session would be
// refused at join), and warns about a body limit over the transport's
// body buffer (bound, < 0: none).
func checkBridgePaths(d *decoder, pp string, ps Paths, realms map[string]*Realm, bound int64) {
	for _, k := range sortedKeysOf(ps) {
		sp := childPath(pp, k)
		var bs *BridgeService
		switch s := ps[k].(type) {
		case *CallerService:
			bs = &s.BridgeService
		case *PublisherService:
			bs = &s.BridgeService
		case *WebhookService:
			bs = &s.BridgeService
		case *EventStreamService:
			bs = &s.BridgeService
		case *PathTree:
			checkBridgePaths(d, sp+".paths", s.Paths, realms, bound)
		}
		if bs != nil {
			bs.checkRefs(d, sp, realms)
			bs.checkBodyBound(d, sp, bound)
		}
	}
}

// checkBodyBound warns about a body limit above the transport's body
// buffer: larger bodies could never be buffered, and get 413. (An
// unlimited post_body_limit already has its warning.)
func (s *BridgeService) checkBodyBound(d *decoder, sp string, bound int64) {
	if bound < 0 || s.PostBodyLimit <= bound {
		return
	}
	d.warnf(sp+".options.post_body_limit", "%d exceeds the web transport's options.body_buffer_limit %d: larger bodies get 413",
		s.PostBodyLimit, bound)
}

func (s *BridgeService) checkRefs(d *decoder, sp string, realms map[string]*Realm) {
	r := realms[s.Realm]
	if r == nil {
		d.errorf(sp+".realm", "realm %q is not defined in this router", s.Realm)
		return
	}
	if s.Role != "trusted" && !slices.ContainsFunc(r.Roles, func(role *Role) bool { return role.Name == s.Role }) {
		d.errorf(sp+".role", "role %q is not defined in realm %q", s.Role, s.Realm)
	}
}
