package config

import "time"

// RealmStats is a realm's "stats": the session statistics the router
// publishes as wamp.session.on_stats (Crossbar's keys and defaults, as its
// code has them).
type RealmStats struct {
	// RatedMessageSize is "rated_message_size" (bytes, even, >= 2, default
	// 512): a message of n bytes counts ceil(n / size) rated messages.
	RatedMessageSize int
	// TriggerAfterRatedMessages is "trigger_after_rated_messages" (>= 0,
	// default 0: never): publish once this many rated messages went either
	// way since the last event.
	TriggerAfterRatedMessages int
	// TriggerAfterDuration is "trigger_after_duration" (seconds, >= 0,
	// default 0: never): publish once this long has passed since the last
	// event. One of the two triggers must be set.
	TriggerAfterDuration time.Duration
	// TriggerOnJoin is "trigger_on_join" (default false): publish the first
	// event when the session joins.
	TriggerOnJoin bool
	// TriggerOnLeave is "trigger_on_leave" (default true). The last event
	// is published when a session leaves whatever it says, on every realm,
	// as Crossbar 21.3.1 does; false gets a warning.
	TriggerOnLeave bool
}

// DefaultRatedMessageSize is "rated_message_size"'s default, Crossbar's.
const DefaultRatedMessageSize = 512

// realmStats decodes a realm's "stats"; nil when absent.
func (d *decoder) realmStats(o *object) *RealmStats {
	so, ok := o.child("stats")
	if !ok {
		return nil
	}
	st := &RealmStats{
		RatedMessageSize:          int(so.integer("rated_message_size", DefaultRatedMessageSize, 2, maxInt32)),
		TriggerAfterRatedMessages: int(so.integer("trigger_after_rated_messages", 0, 0, maxInt32)),
		TriggerAfterDuration:      time.Duration(so.integer("trigger_after_duration", 0, 0, maxInt32)) * time.Second,
		TriggerOnJoin:             so.boolean("trigger_on_join", false),
		TriggerOnLeave:            so.boolean("trigger_on_leave", true),
	}
	if st.RatedMessageSize%2 != 0 {
		d.errorf(so.at("rated_message_size"), "must be even, not %d", st.RatedMessageSize)
	}
	if st.TriggerAfterRatedMessages == 0 && st.TriggerAfterDuration == 0 {
		d.errorf(so.path, "one of trigger_after_rated_messages and trigger_after_duration must be > 0")
	}
	so.ignoredIf(!st.TriggerOnLeave, "trigger_on_leave", ": the last statistics are published when a session leaves (as Crossbar 21.3.1 does)")
	so.done()
	return st
}
