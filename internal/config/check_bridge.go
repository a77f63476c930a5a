package config

import "slices"

// checkBridgePaths reports each caller, publisher and webhook of a web
// transport's paths whose realm the router does not define, or whose role
// that realm does not define (its session would be refused at join).
func checkBridgePaths(d *decoder, pp string, ps Paths, realms map[string]*Realm) {
	for _, k := range sortedKeysOf(ps) {
		sp := childPath(pp, k)
		switch s := ps[k].(type) {
		case *CallerService:
			s.BridgeService.checkRefs(d, sp, realms)
		case *PublisherService:
			s.BridgeService.checkRefs(d, sp, realms)
		case *WebhookService:
			s.BridgeService.checkRefs(d, sp, realms)
		case *PathTree:
			checkBridgePaths(d, sp+".paths", s.Paths, realms)
		}
	}
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
