package mqtt

import (
	"fmt"

	"github.com/junction-wamp/junction/wamp"
)

// subackFailure is the SUBACK code of a refused topic filter.
const subackFailure = 0x80

// handlePublish turns a PUBLISH into a WAMP PUBLISH, acknowledged for QoS
// 1 (Send answers PUBLISHED with the PUBACK). QoS 2 closes the connection,
// as in Crossbar.
func (c *Conn) handlePublish(p packet) error {
	m, err := parsePublish(p)
	if err != nil {
		return err
	}
	if m.qos == 2 {
		return fmt.Errorf("mqtt: PUBLISH of QoS 2 to %q: QoS 2 is not supported", m.topic)
	}
	u, err := topicToURI(m.topic)
	if err != nil {
		return c.refusePublish(m, err)
	}
	pl, opts, err := c.h.mapper.decode(c.ctx, c.h.opts.Realm, u, m.topic, m.payload)
	if err != nil {
		return c.refusePublish(m, err)
	}
	opts[wamp.OptExcludeMe] = false
	opts[wamp.OptRetain] = m.retain
	id := c.nextID()
	if m.qos == 1 {
		opts[wamp.OptAcknowledge] = true
		c.mu.Lock()
		c.pubs[id] = m.packetID
		c.mu.Unlock()
	}
	c.push(&wamp.Publish{Request: id, Options: opts, Topic: u, Args: pl.Args, Kwargs: pl.Kwargs, Raw: pl.Raw})
	return nil
}

// refusePublish handles a PUBLISH we cannot translate (no mapping, a
// payload that does not decode): logged and dropped at QoS 0; at QoS 1 the
// connection is closed, since MQTT 3.1.1 has no negative PUBACK and the
// client must not believe the message was delivered.
func (c *Conn) refusePublish(m publish, err error) error {
	if m.qos == 0 {
		c.log.Warn("mqtt: publication dropped", "topic", m.topic, "err", err)
		return nil
	}
	return fmt.Errorf("mqtt: QoS 1 publication to %q refused: %w", m.topic, err)
}

// handleSubscribe sends a WAMP SUBSCRIBE (with retained events) per topic
// filter; the SUBACK goes once the router has answered them all, granting
// QoS 0, or 0x80 for a filter refused.
func (c *Conn) handleSubscribe(p packet) error {
	s, err := parseSubscribe(p)
	if err != nil {
		return err
	}
	ack := &subAck{packetID: s.packetID, codes: make([]byte, len(s.topics))}
	var msgs []wamp.Message
	c.mu.Lock()
	for i, t := range s.topics {
		u, match, err := filterToURI(t.filter)
		if err != nil {
			c.log.Warn("mqtt: subscription refused", "filter", t.filter, "err", err)
			ack.codes[i] = subackFailure
			continue
		}
		id := c.nextID()
		c.subReqs[id] = subReq{ack: ack, i: i, filter: t.filter, uri: u}
		ack.pending++
		msgs = append(msgs, &wamp.Subscribe{Request: id, Topic: u, Options: subscribeOptions(match)})
	}
	done := ack.pending == 0
	c.mu.Unlock()
	if done {
		return c.queue(subackPacket(ack.packetID, ack.codes))
	}
	for _, m := range msgs {
		if !c.push(m) {
			return nil
		}
	}
	return nil
}

func subscribeOptions(match string) wamp.Dict {
	opts := wamp.Dict{wamp.OptGetRetained: true}
	if match != wamp.MatchExact {
		opts[wamp.OptMatch] = match
	}
	return opts
}

// subscribed records the router's answer to a SUBSCRIBE (sub 0 for a
// refusal) and returns the SUBACK when it was the last one awaited.
func (c *Conn) subscribed(req, sub wamp.ID) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.subReqs[req]
	if !ok {
		return nil
	}
	delete(c.subReqs, req)
	if sub == 0 {
		r.ack.codes[r.i] = subackFailure
	} else {
		c.filters[r.filter] = sub
		c.topics[sub] = r.uri
	}
	r.ack.pending--
	if r.ack.pending > 0 {
		return nil
	}
	return subackPacket(r.ack.packetID, r.ack.codes)
}

// handleUnsubscribe ends the WAMP subscriptions of the filters that no
// other filter of this connection shares, and answers UNSUBACK.
func (c *Conn) handleUnsubscribe(p packet) error {
	u, err := parseUnsubscribe(p)
	if err != nil {
		return err
	}
	for _, f := range u.filters {
		if sub := c.dropFilter(f); sub != 0 {
			c.push(&wamp.Unsubscribe{Request: c.nextID(), Subscription: sub})
		}
	}
	return c.queue(unsubackPacket(u.packetID))
}

// dropFilter forgets filter and returns its subscription if no other
// filter uses it (0 otherwise).
func (c *Conn) dropFilter(filter string) wamp.ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	sub, ok := c.filters[filter]
	if !ok {
		return 0
	}
	delete(c.filters, filter)
	for _, s := range c.filters {
		if s == sub {
			return 0
		}
	}
	delete(c.topics, sub)
	return sub
}
