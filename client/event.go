package client

import "github.com/junction-wamp/junction/wamp"

// delivery is an event with the handlers it goes to.
type delivery struct {
	ev       *Event
	handlers []*Subscription
}

// handleEvent queues an EVENT, for the identities aud allows (nil:
// everyone; see wamp.Addressed), for dispatch; it runs on the reader. A
// retained event goes to the handler that asked for it last (see
// subscription). A full queue closes the session (ErrSlowConsumer).
func (s *Session) handleEvent(m *wamp.Event, aud *wamp.Audience) *wamp.RequestError {
	s.mu.Lock()
	e := s.subs[m.Subscription]
	var handlers []*Subscription
	var topic wamp.URI
	if e != nil {
		handlers, topic = e.handlers, e.topic
		if r, _ := m.Details[wamp.OptRetained].(bool); r && e.retained != nil {
			handlers = []*Subscription{e.retained}
		}
	}
	s.mu.Unlock()
	if e == nil {
		s.log.Debug("client: event for no subscription", "subscription", m.Subscription)
		return nil
	}
	if t, ok := m.Details[wamp.OptTopic].(string); ok {
		topic = wamp.URI(t)
	}
	p := wamp.PayloadOf(m)
	args, kwargs, err := p.Values()
	if err != nil && p.Passthru() == nil {
		s.log.Warn("client: event dropped", "subscription", m.Subscription, "err", err)
		return nil
	}
	ev := &Event{Args: args, Kwargs: kwargs, Passthru: p.Passthru(), Details: m.Details, Topic: topic, Publication: m.Publication, Audience: aud}
	if !s.events.push(delivery{ev: ev, handlers: handlers}) {
		s.log.Error("client: event queue full, closing the session", "limit", s.cfg.eventQueue())
		s.end(ErrSlowConsumer)
	}
	return nil
}

// dispatchEvents is the session's event goroutine. It delivers what was
// queued before the session ended, then returns.
func (s *Session) dispatchEvents() {
	for {
		select {
		case <-s.events.ready:
			s.deliver(s.events.take())
		case <-s.done:
			s.deliver(s.events.take())
			return
		}
	}
}

func (s *Session) deliver(batch []delivery) {
	for _, d := range batch {
		for _, sub := range d.handlers {
			if s.receives(sub, d.ev) {
				s.callEventHandler(sub, d.ev)
			}
		}
	}
}

// callEventHandler runs one handler, logging a panic rather than ending the
// dispatch goroutine.
func (s *Session) callEventHandler(sub *Subscription, ev *Event) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("client: event handler panicked", "topic", sub.topic, "panic", p)
		}
	}()
	sub.handler(ev)
}
