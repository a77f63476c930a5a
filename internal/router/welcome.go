package router

import "github.com/junction-wamp/junction/wamp"

// Agent is the router's name in WELCOME.Details.agent.
const Agent = "junction"

// Features announced in WELCOME, only those really implemented. The meta
// API features are announced only on realms where it is on.
var (
	brokerFeatures = []string{
		"publisher_identification",
		"publisher_exclusion",
		"subscriber_blackwhite_listing",
		"pattern_based_subscription",
		"event_retention",
		"subscription_revocation",
		"payload_transparency",  // Crossbar's name (enc_algo)
		"payload_passthru_mode", // the specification's (ppt_scheme)
	}
	dealerFeatures = []string{
		"call_canceling",
		"call_timeout",
		"caller_identification",
		"progressive_call_results",
		"pattern_based_registration",
		"shared_registration",
		"registration_revocation",
		"payload_transparency",
		"payload_passthru_mode",
	}
	// The session meta API is announced by both roles, as the spec asks.
	brokerMetaFeatures = []string{"session_meta_api", "subscription_meta_api"}
	dealerMetaFeatures = []string{"session_meta_api", "registration_meta_api", "testament_meta_api"}
)

// welcomeDetails are WELCOME.Details: who the session is and what the
// router does. Built afresh for each session (receivers may keep it),
// except roles, which every WELCOME on a realm like s's shares and nobody
// modifies.
func (s *session) welcomeDetails() wamp.Dict {
	d := wamp.Dict{
		wamp.KeyAuthID:       s.ident.AuthID,
		wamp.KeyAuthRole:     s.ident.AuthRole,
		wamp.KeyAuthMethod:   s.ident.AuthMethod,
		wamp.KeyAuthProvider: s.ident.AuthProvider,
		wamp.KeyAgent:        Agent,
		"realm":              string(s.realm.name),
		wamp.KeyRoles:        s.realm.roleDetails(),
	}
	if s.ident.AuthExtra != nil {
		d[wamp.KeyAuthExtra] = s.ident.AuthExtra
	}
	return d
}

// Every WELCOME's roles (see roleDetails), built once: built for each
// session, they were a third of the garbage a join left (2 KiB), which a
// storm of joins holds until the next collection. Never modified.
var (
	rolesPlain = buildRoleDetails(false)
	rolesMeta  = buildRoleDetails(true)
)

// roleDetails are WELCOME.Details.roles: the broker's and dealer's
// features on this realm. Shared: not to be modified.
func (rm *realm) roleDetails() wamp.Dict {
	if rm.meta {
		return rolesMeta
	}
	return rolesPlain
}

// buildRoleDetails builds the roles of a realm with the meta API on (meta)
// or off.
func buildRoleDetails(meta bool) wamp.Dict {
	broker, dealer := featureDict(brokerFeatures), featureDict(dealerFeatures)
	if meta {
		addFeatures(broker, brokerMetaFeatures)
		addFeatures(dealer, dealerMetaFeatures)
	}
	return wamp.Dict{
		"broker": wamp.Dict{wamp.KeyFeatures: broker},
		"dealer": wamp.Dict{wamp.KeyFeatures: dealer},
	}
}

func featureDict(names []string) wamp.Dict {
	d := make(wamp.Dict, len(names))
	addFeatures(d, names)
	return d
}

func addFeatures(d wamp.Dict, names []string) {
	for _, n := range names {
		d[n] = true
	}
}
