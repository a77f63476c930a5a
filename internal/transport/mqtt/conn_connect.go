package mqtt

import (
	"errors"
	"fmt"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// errRefused: the CONNECT was answered with a refusal.
var errRefused = errors.New("mqtt: connection refused")

// handshake reads the CONNECT within the connect timeout, refuses what
// Crossbar refuses, hands the router a HELLO and waits for its answer
// (Send writes the CONNACK).
func (c *Conn) handshake() error {
	c.conn.SetReadDeadline(time.Now().Add(c.h.opts.ConnectTimeout))
	p, err := readPacket(c.rd, c.h.opts.MaxMessageSize)
	if err != nil {
		return fmt.Errorf("mqtt: connect: %w", err)
	}
	if p.typ != typeConnect {
		return malformed("packet type %d before CONNECT", p.typ)
	}
	cp, err := parseConnect(p)
	if err != nil {
		return err
	}
	if err := c.checkConnect(cp); err != nil {
		return err
	}
	c.conn.SetReadDeadline(time.Time{})
	if cp.keepAlive > 0 {
		c.keep = time.Duration(cp.keepAlive) * 1500 * time.Millisecond
	}
	if !c.push(c.hello(cp)) {
		return errRefused
	}
	if err := c.awaitWelcome(); err != nil {
		return err
	}
	if cp.will != nil {
		c.addTestament(cp.will)
	}
	return nil
}

// checkConnect refuses, with a CONNACK, what we do not serve: another
// protocol level than 3.1.1 (code 1), and, as Crossbar (also with code
// 1), a session to resume (clean session false) and a QoS 2 will.
func (c *Conn) checkConnect(cp connect) error {
	var why string
	switch {
	case cp.protocol != "MQTT" || cp.level != 4:
		why = fmt.Sprintf("protocol %q level %d (only MQTT 3.1.1 is served)", cp.protocol, cp.level)
	case !cp.cleanSession:
		why = "clean session false (sessions are not resumed)"
	case cp.will != nil && cp.will.qos == 2:
		why = "a will of QoS 2 (QoS 0 and 1 only)"
	default:
		return nil
	}
	c.queue(connackPacket(connRefusedProtocol))
	c.log.Warn("mqtt: connection refused", "why", why)
	return fmt.Errorf("%w: %s", errRefused, why)
}

// hello is the HELLO for a CONNECT: ticket with the user name as authid
// when a user name and password are given; else tls when the client gave
// a TLS certificate, then anonymous with the client ID as authid, as
// Crossbar 26 does.
func (c *Conn) hello(cp connect) *wamp.Hello {
	extra := wamp.Dict{"mqtt": wamp.Dict{"client_id": cp.clientID, "will": cp.will != nil, "will_topic": willTopic(cp.will)}}
	details := wamp.Dict{"roles": wamp.Dict{
		"subscriber": wamp.Dict{"features": wamp.Dict{"payload_transparency": true, "pattern_based_subscription": true}},
		"publisher":  wamp.Dict{"features": wamp.Dict{"payload_transparency": true, "x_acknowledged_event_delivery": true}},
	}, "authextra": extra}
	if cp.username != nil && len(cp.password) > 0 {
		c.password = cp.password
		details["authmethods"] = wamp.List{"ticket"}
		details["authid"] = *cp.username
	} else if c.info.ClientCert != nil {
		details["authmethods"] = wamp.List{"tls", "anonymous"}
		details["authid"] = cp.clientID
	} else {
		details["authmethods"] = wamp.List{"anonymous"}
		details["authid"] = cp.clientID
	}
	return &wamp.Hello{Realm: wamp.URI(c.h.opts.Realm), Details: details}
}

func willTopic(w *will) any {
	if w == nil {
		return nil
	}
	return w.topic
}

// awaitWelcome waits for Send to have answered the HELLO's outcome.
func (c *Conn) awaitWelcome() error {
	t := time.NewTimer(c.h.opts.ConnectTimeout)
	defer t.Stop()
	select {
	case code := <-c.joined:
		if code != connAccepted {
			return errRefused
		}
		return nil
	case <-t.C:
		return fmt.Errorf("%w: the router did not answer within %s", errRefused, c.h.opts.ConnectTimeout)
	case <-c.ctx.Done():
		return errRefused
	}
}

// errWillPassthru: a will on a topic of payload type passthrough.
var errWillPassthru = errors.New("mqtt: the topic's payload type is passthrough, and a testament (wamp.session.add_testament) carries arguments, not a passthru payload")

// addTestament asks the router to publish the will when the session
// ends, with wamp.session.add_testament, as Crossbar does. A will that
// cannot be mapped is logged and dropped, so is one on a passthrough
// topic (Crossbar would publish it without its payload).
func (c *Conn) addTestament(w *will) {
	u, err := topicToURI(w.topic)
	var pl wamp.Payload
	if err == nil {
		pl, _, err = c.h.mapper.decode(c.ctx, c.h.opts.Realm, u, w.topic, w.message)
	}
	var args wamp.List
	var kwargs wamp.Object
	if err == nil {
		if args, kwargs, err = pl.Values(); errors.Is(err, wamp.ErrPassthru) {
			err = errWillPassthru
		}
	}
	if err != nil {
		c.log.Warn("mqtt: will dropped", "topic", w.topic, "err", err)
		return
	}
	c.will = true
	c.push(&wamp.Call{Request: c.nextID(), Options: wamp.Dict{}, Procedure: "wamp.session.add_testament",
		Args: wamp.List{string(u), orList(args), orDict(kwargs)}, Kwargs: wamp.Object{{Key: "publish_options", Value: wamp.Dict{wamp.OptRetain: w.retain}}}})
}
