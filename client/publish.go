package client

import (
	"context"
	"fmt"

	"github.com/junction-wamp/junction/wamp"
)

// Publish publishes to topic. With opts[acknowledge] true it waits for the
// router's PUBLISHED and returns the publication ID (or the ERROR, as a
// *wamp.RequestError); otherwise it returns ID 0 once the message is queued
// for sending. It publishes for the identity of ctx if it has one
// (WithIdentity).
func (s *Session) Publish(ctx context.Context, topic wamp.URI, args wamp.List, kwargs wamp.Object, opts wamp.Dict) (wamp.ID, error) {
	return s.publish(ctx, topic, wamp.Payload{Args: args, Kwargs: kwargs}, opts)
}

// PublishPassthru publishes payload to topic in payload passthru mode
// (payload transparency), as autobahn and Crossbar.io send it: opaque
// bytes that the router forwards untouched, described by opts, which
// must hold wamp.OptEncAlgo ("mqtt", "cryptobox", "xbr" or a custom
// "x_..." name) and may hold wamp.OptEncKey and wamp.OptEncSerializer.
// Subscribers get the bytes as Event.Passthru. Otherwise as Publish.
func (s *Session) PublishPassthru(ctx context.Context, topic wamp.URI, payload []byte, opts wamp.Dict) (wamp.ID, error) {
	return s.publish(ctx, topic, wamp.Payload{Raw: wamp.NewPassthru(payload)}, opts)
}

func (s *Session) publish(ctx context.Context, topic wamp.URI, p wamp.Payload, opts wamp.Dict) (wamp.ID, error) {
	build := func(id wamp.ID) wamp.Message {
		return acting(ctx, &wamp.Publish{Request: id, Options: opts, Topic: topic, Args: p.Args, Kwargs: p.Kwargs, Raw: p.Raw})
	}
	if ack, _ := opts[wamp.OptAcknowledge].(bool); !ack {
		if err := s.Err(); err != nil {
			return 0, fmt.Errorf("client: publish %s: %w", topic, err)
		}
		if err := s.peer.Send(build(s.ids.Next())); err != nil {
			return 0, fmt.Errorf("client: publish %s: %w", topic, err)
		}
		return 0, nil
	}
	m, err := s.roundTrip(ctx, build, nil)
	if err != nil {
		return 0, fmt.Errorf("client: publish %s: %w", topic, err)
	}
	switch m := m.(type) {
	case *wamp.Published:
		return m.Publication, nil
	case *wamp.Error:
		return 0, requestError(m)
	}
	return 0, unexpected(m)
}
