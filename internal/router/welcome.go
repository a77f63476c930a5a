package router

import "github.com/junction-wamp/junction/internal/wamp"

// Agent is the router's name in WELCOME.Details.agent.
const Agent = "junction"

// Features announced in WELCOME, only those really implemented. The meta
// API adds its own (session_meta_api, ...) when it is wired in.
var (
	brokerFeatures = []string{
		"publisher_identification",
		"publisher_exclusion",
		"subscriber_blackwhite_listing",
		"pattern_based_subscription",
		"event_retention",
	}
	dealerFeatures = []string{
		"call_canceling",
		"call_timeout",
		"caller_identification",
		"progressive_call_results",
		"pattern_based_registration",
		"shared_registration",
	}
)

// welcomeDetails are WELCOME.Details: who the session is and what the
// router does. Built afresh for each session: receivers may keep it.
func (s *session) welcomeDetails() wamp.Dict {
	d := wamp.Dict{
		wamp.KeyAuthID:       s.ident.AuthID,
		wamp.KeyAuthRole:     s.ident.AuthRole,
		wamp.KeyAuthMethod:   s.ident.AuthMethod,
		wamp.KeyAuthProvider: s.ident.AuthProvider,
		wamp.KeyAgent:        Agent,
		wamp.KeyRoles: wamp.Dict{
			"broker": wamp.Dict{wamp.KeyFeatures: featureDict(brokerFeatures)},
			"dealer": wamp.Dict{wamp.KeyFeatures: featureDict(dealerFeatures)},
		},
	}
	if s.ident.AuthExtra != nil {
		d[wamp.KeyAuthExtra] = s.ident.AuthExtra
	}
	return d
}

func featureDict(names []string) wamp.Dict {
	d := make(wamp.Dict, len(names))
	for _, n := range names {
		d[n] = true
	}
	return d
}
