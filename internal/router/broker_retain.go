package router

import (
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/internal/wamp"
)

// retain keeps e as the last event of its topic, for subscribers that ask
// get_retained. Its filter still applies to them.
func (b *broker) retain(e *outEvent) {
	b.mu.Lock()
	b.retained[e.topic] = e
	b.mu.Unlock()
}

// sendRetained sends s the retained events that sub's pattern matches,
// each with details retained: true. Runs after SUBSCRIBED was sent.
func (b *broker) sendRetained(s *session, sub subInfo) {
	m, _ := uriindex.ParseMatch(sub.Match)
	var one uriindex.Index[struct{}]
	one.Set(string(sub.Topic), m, struct{}{})
	var msgs []wamp.Message
	b.mu.RLock()
	for topic, e := range b.retained {
		if matches(&one, topic) && e.filter.allows(s) {
			msgs = append(msgs, e.event(sub.ID, m, true))
		}
	}
	b.mu.RUnlock()
	for _, msg := range msgs {
		s.send(msg)
	}
}

// matches reports whether x has any pattern that matches uri.
func matches(x *uriindex.Index[struct{}], uri wamp.URI) bool {
	found := false
	x.Match(string(uri), func(string, uriindex.Match, struct{}) bool {
		found = true
		return false
	})
	return found
}
