package node

import (
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
)

// statsOptions translates a realm's "stats" (nil: the zero options, where
// only the last event of each session is published).
func statsOptions(st *config.RealmStats) router.StatsOptions {
	if st == nil {
		return router.StatsOptions{}
	}
	return router.StatsOptions{
		Enabled:            true,
		RatedMessageSize:   st.RatedMessageSize,
		AfterRatedMessages: uint64(st.TriggerAfterRatedMessages),
		AfterDuration:      st.TriggerAfterDuration,
		OnJoin:             st.TriggerOnJoin,
	}
}
