package router

import (
	"sync"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// topicSessionOnStats is the session statistics meta event.
const topicSessionOnStats wamp.URI = "wamp.session.on_stats"

// StatsOptions configures a realm's session statistics (Crossbar's realm
// "stats"): wamp.session.on_stats(session, stats) events with what each
// session has sent and received since the last one. The zero value
// publishes one event only, when a session leaves (Crossbar publishes that
// one on every realm, "stats" or not); the meta API must be on.
type StatsOptions struct {
	// Enabled turns the triggers below on.
	Enabled bool
	// RatedMessageSize is the size of a rated message, in bytes: a message
	// of n bytes counts ceil(n / size). 0: wamp.DefaultRatedSize.
	RatedMessageSize int
	// AfterRatedMessages publishes once this many rated messages went
	// either way since the last event; 0: never.
	AfterRatedMessages uint64
	// AfterDuration publishes once this long has passed since the last
	// event; 0: never.
	AfterDuration time.Duration
	// OnJoin publishes the first event as soon as the session has joined.
	OnJoin bool
}

// sessionStats are a joined session's statistics since its last
// wamp.session.on_stats. The transport counts them when its peer is
// wamp.Metered (WebSocket, RawSocket), from the connection's first
// message; otherwise (embedded sessions) the router counts the messages
// from the join, and bytes and rated messages are zero.
type sessionStats struct {
	s       *session
	opts    *StatsOptions // the realm's
	traffic *wamp.Traffic

	mu    sync.Mutex // guards the fields below; a leaf lock, never held while publishing
	cycle uint64
	reset time.Time         // of the last event, or the join
	base  wamp.TrafficCount // the counts then
	first bool              // an event was published
	done  bool              // the last one was
	timer *time.Timer
}

// startStats sets up s's statistics once it has joined rm (meta API on)
// and publishes the first event when rm's stats say so. s's goroutine.
func (s *session) startStats(rm *realm) {
	st := &sessionStats{s: s, opts: &rm.statsOpts, reset: time.Now()}
	if m, ok := s.peer.(wamp.Metered); ok {
		st.traffic = m.Traffic()
	}
	s.stats = st
	if !st.opts.Enabled {
		return
	}
	st.traffic.SetRatedSize(st.opts.RatedMessageSize)
	if st.opts.OnJoin {
		s.publishStats(false)
		return
	}
	st.mu.Lock()
	st.arm()
	st.mu.Unlock()
}

// publishStats publishes s's statistics since the last event, the last
// one if last. Safe for concurrent use (reader, writer, timer); nothing
// after the last.
func (s *session) publishStats(last bool) {
	if s.stats == nil {
		return
	}
	d, ok := s.stats.take(last)
	if !ok {
		return
	}
	info := wamp.Dict{
		"realm": string(s.realm.name), "session": uint64(s.id),
		wamp.KeyAuthID: s.ident.AuthID, wamp.KeyAuthRole: s.ident.AuthRole,
	}
	s.realm.publishInternal(topicSessionOnStats, nil, wamp.List{info, d}, nil)
}

// take returns the statistics since the last event and starts a new cycle
// (Crossbar's serializer stats, with first and last). False after the last.
func (st *sessionStats) take(last bool) (wamp.Dict, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return nil, false
	}
	now, cur := time.Now(), st.count()
	st.cycle++
	d := wamp.Dict{
		"cycle":          st.cycle,
		"serializer":     st.s.peer.Info().Serializer,
		"timestamp":      st.reset.UnixNano(),
		"duration":       now.Sub(st.reset).Nanoseconds(),
		"messages":       cur.Messages - st.base.Messages,
		"bytes":          cur.Bytes - st.base.Bytes,
		"rated_messages": cur.Rated - st.base.Rated,
		"first":          !st.first && !last, // Crossbar's last event always says false
		"last":           last,
	}
	st.first, st.base, st.reset = true, cur, now
	if last {
		st.disarm()
	} else {
		st.arm()
	}
	return d, true
}

// count reads the session's counts. st.mu held.
func (st *sessionStats) count() wamp.TrafficCount {
	if st.traffic != nil {
		return st.traffic.Load()
	}
	return wamp.TrafficCount{Messages: st.s.messages.Load()}
}

// arm sets the triggers for the next event, from st.base. st.mu held.
func (st *sessionStats) arm() {
	if n := st.opts.AfterRatedMessages; n > 0 && st.traffic != nil {
		st.traffic.Watch(&wamp.TrafficWatch{At: st.base.Rated + n, Fn: st.fire})
	}
	if d := st.opts.AfterDuration; d > 0 {
		if st.timer == nil {
			st.timer = time.AfterFunc(d, st.fire)
		} else {
			st.timer.Reset(d)
		}
	}
}

// disarm stops the triggers. st.mu held.
func (st *sessionStats) disarm() {
	st.done = true
	st.traffic.Watch(nil)
	if st.timer != nil {
		st.timer.Stop()
	}
}

// fire is a trigger: it runs on the goroutine that counted the message or
// on the timer's.
func (st *sessionStats) fire() { st.s.publishStats(false) }
