package client

import (
	"context"
	"fmt"

	"github.com/junction-wamp/junction/internal/wamp"
)

// Publish publishes to topic. With opts[acknowledge] true it waits for the
// router's PUBLISHED (or ERROR, returned as a *wamp.RequestError); otherwise
// it returns once the message is queued for sending.
func (s *Session) Publish(ctx context.Context, topic wamp.URI, args wamp.List, kwargs wamp.Dict, opts wamp.Dict) error {
	build := func(id wamp.ID) wamp.Message {
		return &wamp.Publish{Request: id, Options: opts, Topic: topic, Args: args, Kwargs: kwargs}
	}
	if ack, _ := opts[wamp.OptAcknowledge].(bool); !ack {
		if err := s.Err(); err != nil {
			return fmt.Errorf("client: publish %s: %w", topic, err)
		}
		if err := s.peer.Send(build(s.ids.Next())); err != nil {
			return fmt.Errorf("client: publish %s: %w", topic, err)
		}
		return nil
	}
	m, err := s.roundTrip(ctx, build, nil)
	if err != nil {
		return fmt.Errorf("client: publish %s: %w", topic, err)
	}
	switch m := m.(type) {
	case *wamp.Published:
		return nil
	case *wamp.Error:
		return requestError(m)
	}
	return unexpected(m)
}
