package client

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/junction-wamp/junction/wamp"
)

// Call calls procedure on the current session, waiting for one if
// disconnected; see Session.Call.
func (c *Client) Call(ctx context.Context, procedure wamp.URI, args wamp.List, kwargs wamp.Object,
	opts ...CallOption) (*Result, error) {
	s, err := c.session(ctx)
	if err != nil {
		return nil, fmt.Errorf("client: call %s: %w", procedure, err)
	}
	return s.Call(ctx, procedure, args, kwargs, opts...)
}

// CallPassthru calls procedure with a passthru payload on the current
// session, waiting for one if disconnected; see Session.CallPassthru.
func (c *Client) CallPassthru(ctx context.Context, procedure wamp.URI, payload []byte, passthru wamp.Dict,
	opts ...CallOption) (*Result, error) {
	s, err := c.session(ctx)
	if err != nil {
		return nil, fmt.Errorf("client: call %s: %w", procedure, err)
	}
	return s.CallPassthru(ctx, procedure, payload, passthru, opts...)
}

// Publish publishes on the current session, waiting for one if
// disconnected; see Session.Publish.
func (c *Client) Publish(ctx context.Context, topic wamp.URI, args wamp.List, kwargs wamp.Object, opts wamp.Dict) (wamp.ID, error) {
	s, err := c.session(ctx)
	if err != nil {
		return 0, fmt.Errorf("client: publish %s: %w", topic, err)
	}
	return s.Publish(ctx, topic, args, kwargs, opts)
}

// PublishPassthru publishes a passthru payload on the current session
// (waiting for one if disconnected); see Session.PublishPassthru.
func (c *Client) PublishPassthru(ctx context.Context, topic wamp.URI, payload []byte, opts wamp.Dict) (wamp.ID, error) {
	s, err := c.session(ctx)
	if err != nil {
		return 0, fmt.Errorf("client: publish %s: %w", topic, err)
	}
	return s.PublishPassthru(ctx, topic, payload, opts)
}

// Register registers procedure on the current session (waiting for one if
// disconnected) and again on every later session, until Unregister.
func (c *Client) Register(ctx context.Context, procedure wamp.URI, h InvocationHandler, opts wamp.Dict) (*Registration, error) {
	r := &Registration{procedure: procedure, handler: h, options: opts, c: c}
	err := c.remember(ctx, func(s *Session) error {
		sr, err := s.Register(ctx, procedure, h, opts)
		if err == nil {
			c.mu.Lock()
			c.regs[r] = sr
			c.mu.Unlock()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Subscribe subscribes h to topic on the current session (waiting for one
// if disconnected) and again on every later session, until Unsubscribe.
func (c *Client) Subscribe(ctx context.Context, topic wamp.URI, h EventHandler, opts wamp.Dict) (*Subscription, error) {
	sub := &Subscription{topic: topic, handler: h, options: opts, identity: IdentityFrom(ctx), c: c}
	err := c.remember(ctx, func(s *Session) error {
		ss, err := s.Subscribe(ctx, topic, h, opts)
		if err == nil {
			c.mu.Lock()
			c.subs[sub] = ss
			c.mu.Unlock()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return sub, nil
}

// remember runs add on the current session with opMu held, so that it does
// not race with a renewal. A request lost with its session is tried again on
// the next one.
func (c *Client) remember(ctx context.Context, add func(s *Session) error) error {
	for {
		s, err := c.session(ctx)
		if err != nil {
			return fmt.Errorf("client: %w", err)
		}
		c.opMu.Lock()
		if c.Session() != s {
			c.opMu.Unlock()
			continue
		}
		err = add(s)
		c.opMu.Unlock()
		if err != nil && s.Err() != nil && ctx.Err() == nil {
			continue
		}
		return err
	}
}

// renew registers and subscribes again on s what the client remembers;
// failures are logged and leave the item without a current registration.
// c.opMu must be held.
func (c *Client) renew(s *Session) {
	ctx, cancel := context.WithTimeout(c.ctx, c.joinTimeout())
	defer cancel()
	c.mu.Lock()
	regs := slices.Collect(maps.Keys(c.regs))
	subs := slices.Collect(maps.Keys(c.subs))
	c.mu.Unlock()
	for _, r := range regs {
		sr, err := s.Register(ctx, r.procedure, r.handler, r.options)
		if err != nil {
			c.log.Error("client: register again failed", "procedure", r.procedure, "err", err)
		}
		c.mu.Lock()
		c.regs[r] = sr
		c.mu.Unlock()
	}
	for _, sub := range subs {
		ss, err := s.Subscribe(WithIdentity(ctx, sub.identity), sub.topic, sub.handler, sub.options)
		if err != nil {
			c.log.Error("client: subscribe again failed", "topic", sub.topic, "err", err)
		}
		c.mu.Lock()
		c.subs[sub] = ss
		c.mu.Unlock()
	}
}

// unregister forgets r and unregisters it from the current session.
func (c *Client) unregister(ctx context.Context, r *Registration) error {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	c.mu.Lock()
	sr := c.regs[r]
	delete(c.regs, r)
	c.mu.Unlock()
	if sr == nil || sr.s.Err() != nil {
		return nil
	}
	return ignoreEnded(sr.s, sr.Unregister(ctx))
}

// unsubscribe forgets sub and unsubscribes it from the current session.
func (c *Client) unsubscribe(ctx context.Context, sub *Subscription) error {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	c.mu.Lock()
	ss := c.subs[sub]
	delete(c.subs, sub)
	c.mu.Unlock()
	if ss == nil || ss.s.Err() != nil {
		return nil
	}
	return ignoreEnded(ss.s, ss.Unsubscribe(ctx))
}

// ignoreEnded drops err when the session ended meanwhile: the router
// forgets a session's registrations and subscriptions with it.
func ignoreEnded(s *Session, err error) error {
	if err != nil && s.Err() != nil {
		return nil
	}
	return err
}

func (c *Client) registrationID(r *Registration) wamp.ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sr := c.regs[r]; sr != nil && sr.s.Err() == nil {
		return sr.id
	}
	return 0
}

func (c *Client) subscriptionID(sub *Subscription) wamp.ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ss := c.subs[sub]; ss != nil && ss.s.Err() == nil {
		return ss.id
	}
	return 0
}
