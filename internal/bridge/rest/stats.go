package rest

import "sync/atomic"

// stats are a Subscriber's counters; safe for concurrent use.
type stats struct {
	delivered, retried, dropped, queueFull atomic.Uint64
}

func (st *stats) snapshot() SubscriberStats {
	return SubscriberStats{Delivered: st.delivered.Load(), Retried: st.retried.Load(),
		Dropped: st.dropped.Load(), QueueFull: st.queueFull.Load()}
}
