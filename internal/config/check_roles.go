package config

// checkTransportRoles warns about authentication roles that no realm of the
// router defines: such sessions would be refused at join time. (Roles are
// per realm and transports are not, so this cannot be an error.)
func checkTransportRoles(d *decoder, tp string, t Transport, roles map[string]bool) {
	switch t := t.(type) {
	case *WebSocketTransport:
		checkAuthRoles(d, tp+".auth", t.Auth, roles)
	case *RawSocketTransport:
		checkAuthRoles(d, tp+".auth", t.Auth, roles)
	case *WebTransport:
		checkPathRoles(d, tp+".paths", t.Paths, roles)
	}
}

func checkPathRoles(d *decoder, pp string, ps Paths, roles map[string]bool) {
	for _, k := range sortedKeysOf(ps) {
		switch s := ps[k].(type) {
		case *WebSocketService:
			checkAuthRoles(d, childPath(pp, k)+".auth", s.Auth, roles)
		case *PathTree:
			checkPathRoles(d, childPath(pp, k)+".paths", s.Paths, roles)
		}
	}
}

// checkAuthRoles warns about each role of a that is not in roles.
func checkAuthRoles(d *decoder, ap string, a Auth, roles map[string]bool) {
	warn := func(path, role string) {
		if role != "" && !roles[role] {
			d.warnf(path, "role %q is not defined in any realm of this router", role)
		}
	}
	if a.Anonymous != nil {
		warn(ap+".anonymous.role", a.Anonymous.Role)
	}
	if a.Ticket != nil {
		for _, id := range sortedKeysOf(a.Ticket.Principals) {
			warn(childPath(ap+".ticket.principals", id)+".role", a.Ticket.Principals[id].Role)
		}
	}
	if a.WAMPCRA != nil {
		for _, id := range sortedKeysOf(a.WAMPCRA.Users) {
			warn(childPath(ap+".wampcra.users", id)+".role", a.WAMPCRA.Users[id].Role)
		}
	}
	if a.Cryptosign != nil {
		for _, id := range sortedKeysOf(a.Cryptosign.Principals) {
			warn(childPath(ap+".cryptosign.principals", id)+".role", a.Cryptosign.Principals[id].Role)
		}
	}
}
