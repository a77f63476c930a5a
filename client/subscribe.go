package client

import (
	"context"
	"fmt"
	"slices"

	"github.com/junction-wamp/junction/wamp"
)

// EventHandler receives the events of a subscription. All handlers of a
// session run in order on the session's one dispatch goroutine, so a
// handler that blocks delays the session's other events (not its calls).
type EventHandler func(ev *Event)

// Event is one EVENT.
type Event struct {
	Args   wamp.List   // positional arguments; nil for none
	Kwargs wamp.Object // keyword arguments, in received order; nil for none
	// Passthru is a payload in passthru mode (payload transparency), as
	// autobahn, Crossbar.io and the MQTT transport's "passthrough"
	// payloads send it: opaque bytes that Details describe
	// (wamp.OptEncAlgo, ...); Args and Kwargs are then nil. Nil for an
	// event with arguments.
	Passthru    []byte
	Details     wamp.Dict // EVENT.Details (publisher, topic, retained, ...)
	Topic       wamp.URI  // details.topic (pattern subscriptions), else the subscribed topic
	Publication wamp.ID   // the router's publication ID
	// Audience is who the event is for by authid and authrole, on a
	// session of the node's own that acts for others (see
	// wamp.Addressed); nil otherwise. The session has applied it already:
	// a handler receives only the events for its subscription's identity.
	Audience *wamp.Audience
}

// Subscription is a handler subscribed by a Session, or remembered by a
// Client (which subscribes it again after every reconnect).
type Subscription struct {
	topic   wamp.URI
	handler EventHandler
	options wamp.Dict
	// identity is who it subscribed for (WithIdentity); nil: the session.
	identity *wamp.Identity

	s  *Session
	id wamp.ID

	c *Client
}

// subscription is the router's subscription ID with the local handlers on
// it (a router gives the same ID to a session's subscriptions of one
// topic). handlers is copied on write; s.mu guards the fields.
//
// retained is the handler whose get_retained SUBSCRIBE was answered last:
// the router sends the retained events after each such SUBSCRIBED, and
// they go to that handler alone, not to the handlers that had them
// already or never asked. Where the router sends them at once after
// SUBSCRIBED (to the node's own sessions), each handler gets exactly the
// retained events of its own SUBSCRIBE; elsewhere the router delays them
// a little (see router.sendRetained), so two get_retained subscriptions
// of one topic made at once may see each other's.
type subscription struct {
	topic    wamp.URI
	handlers []*Subscription
	retained *Subscription
}

// Topic returns the subscribed topic (or pattern).
func (sub *Subscription) Topic() wamp.URI { return sub.topic }

// ID returns the router's subscription ID; for a Client's subscription, the
// ID in the current session (0 while disconnected).
func (sub *Subscription) ID() wamp.ID {
	if sub.c != nil {
		return sub.c.subscriptionID(sub)
	}
	return sub.id
}

// Unsubscribe removes the handler; the router subscription goes when its
// last local handler does.
func (sub *Subscription) Unsubscribe(ctx context.Context) error {
	if sub.c != nil {
		return sub.c.unsubscribe(ctx, sub)
	}
	return sub.s.unsubscribe(ctx, sub)
}

// Subscribe subscribes h to topic. opts are the SUBSCRIBE options (match,
// get_retained, ...); nil for none. It subscribes for the identity of ctx
// if it has one (WithIdentity): h then receives only the events whose
// Audience allows that identity.
func (s *Session) Subscribe(ctx context.Context, topic wamp.URI, h EventHandler, opts wamp.Dict) (*Subscription, error) {
	if h == nil {
		return nil, fmt.Errorf("client: subscribe %s: %w", topic, errNilHandler)
	}
	as := IdentityFrom(ctx)
	sub := &Subscription{topic: topic, handler: h, options: opts, identity: as, s: s}
	m, err := s.roundTrip(ctx, func(id wamp.ID) wamp.Message {
		return acting(ctx, &wamp.Subscribe{Request: id, Options: opts, Topic: topic})
	}, func(m wamp.Message, abandoned bool) { s.subscribed(sub, m, abandoned) })
	if err != nil {
		return nil, fmt.Errorf("client: subscribe %s: %w", topic, err)
	}
	switch m := m.(type) {
	case *wamp.Subscribed:
		return sub, nil
	case *wamp.Error:
		return nil, requestError(m)
	}
	return nil, unexpected(m)
}

// subscribed adds sub's handler on SUBSCRIBED, before the reader reads on;
// a subscription whose Subscribe gave up is removed unless shared.
func (s *Session) subscribed(sub *Subscription, m wamp.Message, abandoned bool) {
	ok, isSub := m.(*wamp.Subscribed)
	if !isSub {
		return
	}
	s.mu.Lock()
	e := s.subs[ok.Subscription]
	if abandoned {
		s.mu.Unlock()
		if e == nil {
			_ = s.peer.Send(&wamp.Unsubscribe{Request: s.ids.Next(), Subscription: ok.Subscription})
		}
		return
	}
	if e == nil {
		e = &subscription{topic: sub.topic}
		s.subs[ok.Subscription] = e
	}
	sub.id = ok.Subscription
	e.handlers = append(slices.Clip(e.handlers), sub)
	if asked, _ := sub.options[wamp.OptGetRetained].(bool); asked {
		e.retained = sub
	}
	s.mu.Unlock()
}

func (s *Session) unsubscribe(ctx context.Context, sub *Subscription) error {
	if !s.removeHandler(sub) {
		return nil
	}
	m, err := s.roundTrip(ctx, func(id wamp.ID) wamp.Message {
		return &wamp.Unsubscribe{Request: id, Subscription: sub.id}
	}, nil)
	if err != nil {
		return fmt.Errorf("client: unsubscribe %s: %w", sub.topic, err)
	}
	switch m := m.(type) {
	case *wamp.Unsubscribed:
		return nil
	case *wamp.Error:
		return requestError(m)
	}
	return unexpected(m)
}

// removeHandler removes sub's handler and reports whether it was the last
// one on its router subscription (which is then forgotten).
func (s *Session) removeHandler(sub *Subscription) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.subs[sub.id]
	if e == nil {
		return false
	}
	handlers := slices.DeleteFunc(slices.Clone(e.handlers), func(h *Subscription) bool { return h == sub })
	if e.retained == sub {
		e.retained = nil
	}
	if len(handlers) > 0 {
		e.handlers = handlers
		return false
	}
	delete(s.subs, sub.id)
	return true
}

// handleUnsubscribed completes Unsubscribe, or takes note of the router
// revoking a subscription (request 0).
func (s *Session) handleUnsubscribed(m *wamp.Unsubscribed) {
	if m.Request != 0 {
		s.reply(m.Request, m)
		return
	}
	id, _ := wamp.AsInt(m.Details["subscription"])
	s.mu.Lock()
	delete(s.subs, wamp.ID(id))
	s.mu.Unlock()
	s.log.Warn("client: router revoked a subscription", "subscription", id, "reason", m.Details[wamp.OptReason])
}
