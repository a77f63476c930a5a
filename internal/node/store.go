package node

import (
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// eventHistories translates a realm's "store" into the router's event
// histories (none when st is nil).
func eventHistories(st *config.RealmStore) []router.EventHistory {
	if st == nil {
		return nil
	}
	hs := make([]router.EventHistory, len(st.EventHistory))
	for i, h := range st.EventHistory {
		hs[i] = router.EventHistory{Topic: wamp.URI(h.URI), Match: h.Match.String(), Limit: h.Limit}
	}
	return hs
}
