package mqtt

import (
	"errors"
	"fmt"

	"github.com/junction-wamp/junction/wamp"
)

// Send translates a message from the router; see wamp.Peer. It never
// blocks on the network: packets go through the outbox, events to be
// encoded by a procedure through the encoder goroutine.
func (c *Conn) Send(msg wamp.Message) error {
	if c.out.Closed() {
		return wamp.ErrClosed
	}
	switch m := wamp.Unwrap(msg).(type) {
	case *wamp.Event:
		return c.sendEvent(m)
	case *wamp.Published:
		return c.published(m.Request)
	case *wamp.Subscribed:
		return c.queueIf(c.subscribed(m.Request, m.Subscription))
	case *wamp.Error:
		return c.sendError(m)
	case *wamp.Welcome:
		return c.connack(connAccepted)
	case *wamp.Abort:
		c.log.Warn("mqtt: connection refused by the router", "reason", m.Reason)
		return c.connack(connRefusedNotAuth)
	case *wamp.Challenge:
		c.pushCtl(&wamp.Authenticate{Signature: string(c.password), Extra: wamp.Dict{}})
	case *wamp.Goodbye:
		// MQTT has no GOODBYE: the router's ends the connection, as in
		// Crossbar (Close flushes, so not on the router's goroutine).
		go c.Close()
	}
	return nil // UNSUBSCRIBED, RESULT
}

func (c *Conn) queueIf(b []byte) error {
	if b == nil {
		return nil
	}
	return c.queue(b)
}

// connack answers the CONNECT and lets the reader go on.
func (c *Conn) connack(code byte) error {
	err := c.queue(connackPacket(code))
	select {
	case c.joined <- code:
	default:
	}
	return err
}

// published answers a QoS 1 PUBLISH with its PUBACK.
func (c *Conn) published(req wamp.ID) error {
	c.mu.Lock()
	id, ok := c.pubs[req]
	delete(c.pubs, req)
	c.mu.Unlock()
	if !ok {
		return nil
	}
	return c.queue(pubackPacket(id))
}

// sendError handles an ERROR: a refused SUBSCRIBE fails its filter in the
// SUBACK; a refused QoS 1 PUBLISH closes the connection (MQTT 3.1.1 has no
// negative PUBACK); a refused testament is logged.
func (c *Conn) sendError(m *wamp.Error) error {
	switch m.RequestType {
	case wamp.TypeSubscribe:
		c.log.Warn("mqtt: subscription refused by the router", "err", m.Error)
		return c.queueIf(c.subscribed(m.Request, 0))
	case wamp.TypePublish:
		c.log.Warn("mqtt: publication refused by the router", "err", m.Error)
		c.mu.Lock()
		_, qos1 := c.pubs[m.Request]
		delete(c.pubs, m.Request)
		c.mu.Unlock()
		if qos1 {
			c.conn.Close()
		}
	case wamp.TypeCall:
		c.log.Warn("mqtt: will refused by the router", "err", m.Error)
	}
	return nil
}

// sendEvent delivers an event as a QoS 0 PUBLISH, encoded here for native
// mappings and on the encoder goroutine for dynamic ones (in order). A
// natively mapped event that cannot be mapped gives the router a
// *wamp.EncodeError, which it counts and logs (rate-limited).
func (c *Conn) sendEvent(ev *wamp.Event) error {
	if c.events == nil {
		return c.deliver(ev)
	}
	select {
	case c.events <- ev:
		return nil
	default:
		c.log.Warn("mqtt: slow consumer: too many events waiting for the encoder")
		c.conn.Close()
		return wamp.ErrSlowConsumer
	}
}

// encodeLoop is the encoder goroutine of a connection with dynamic
// mappings. An event that cannot be mapped is logged here (rate-limited)
// and dropped: the router's Send returned long ago.
func (c *Conn) encodeLoop() {
	defer c.stopped.Done()
	for {
		select {
		case ev := <-c.events:
			err := c.deliver(ev)
			if errors.Is(err, wamp.ErrUnencodable) {
				if ok, held := c.h.dropLog.Allow(); ok {
					c.log.Warn("mqtt: event not delivered", "err", err, "dropped_since_last_log", held)
				}
			} else if err != nil {
				return
			}
		case <-c.ctx.Done():
			return
		}
	}
}

// deliver encodes ev and queues it. An event that cannot be mapped (its
// payload does not encode, its topic has no mapping, a dynamic encoder
// failed) is not sent: a *wamp.EncodeError says why.
func (c *Conn) deliver(ev *wamp.Event) error {
	u := c.eventTopic(ev)
	topic := uriToTopic(u)
	payload, err := c.h.mapper.encode(c.ctx, c.h.opts.Realm, u, topic, wamp.PayloadOf(ev))
	if err != nil {
		return &wamp.EncodeError{Type: wamp.TypeEvent, Err: fmt.Errorf("mqtt topic %q: %w", topic, err)}
	}
	retained, _ := ev.Details[wamp.OptRetained].(bool)
	return c.queue(publishPacket(topic, payload, retained))
}

// eventTopic is the event's topic: in its details for a pattern
// subscription, the subscription's own otherwise.
func (c *Conn) eventTopic(ev *wamp.Event) wamp.URI {
	switch t := ev.Details[wamp.OptTopic].(type) {
	case string:
		return wamp.URI(t)
	case wamp.URI:
		return t
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.topics[ev.Subscription]
}
