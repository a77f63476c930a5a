package router

import (
	"errors"
	"maps"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// handlePublish publishes an event. As in Crossbar, PUBLISHED and any
// ERROR are sent only when the publisher asked for acknowledge. While
// the node is fenced, an acknowledged publication fails and is not
// published: the other nodes' subscribers are out of reach.
func (s *session) handlePublish(m *wamp.Publish) error { return s.handlePublishAs(m, nil) }

// handlePublishAs is handlePublish for a publication that acts for as
// (nil: s itself).
func (s *session) handlePublishAs(m *wamp.Publish, as *wamp.Identity) error {
	ack, _ := optBool(m.Options, wamp.OptAcknowledge, false)
	if ack && s.realm.fenced.Load() {
		return s.realm.errFenced() // it cannot reach the other nodes' subscribers
	}
	pub, err := s.realm.broker.publishAs(s, as, m.Topic, m.Options, wamp.PayloadOf(m))
	if !ack {
		if err != nil && isViolation(err) {
			return err
		}
		s.dropped(err)
		return nil
	}
	if err != nil {
		return err
	}
	s.send(&wamp.Published{Request: m.Request, Publication: pub})
	return nil
}

// publish checks and sends an event to every subscriber of every
// subscription matching topic. pub is nil for an event of the router itself
// (the meta API); clients may not publish to wamp.* topics. It returns the
// publication ID.
// The payload is forwarded as it came: raw payloads are not decoded.
func (b *broker) publish(pub *session, topic wamp.URI, opts wamp.Dict, p wamp.Payload) (wamp.ID, error) {
	return b.publishAs(pub, nil, topic, opts, p)
}

// publishAs is publish for a publisher that acts for as (nil: itself).
func (b *broker) publishAs(pub *session, as *wamp.Identity, topic wamp.URI, opts wamp.Dict, p wamp.Payload) (wamp.ID, error) {
	e, err := b.prepare(pub, as, topic, opts)
	if err != nil {
		return 0, err
	}
	if err := e.passthru(pub, opts, p); err != nil {
		return 0, err
	}
	e.payload = p
	retain, _ := optBool(opts, wamp.OptRetain, false)
	if retain {
		if err := b.retain(pub, e, wamp.PayloadSize(topic, p, opts)); err != nil {
			return 0, err
		}
	}
	var buf [4]target
	ts, recorded := b.targets(topic, buf[:0])
	if recorded {
		b.record(pub, e, ts)
	}
	for _, t := range ts {
		if t.set != nil {
			e.deliver(t, pub)
			t.set.release()
		}
	}
	b.published(e, retain)
	return e.publication, nil
}

// target is a subscription that a publication matches, with the subscriber
// set it had then (acquired: the caller releases it once it has sent; nil
// when it has none) and its event history (nil: none).
type target struct {
	id    wamp.ID
	match uriindex.Match
	set   *subscriberSet
	hist  *history
}

// targets appends to ts the subscriptions matching topic that have
// subscribers or an event history, and acquires their sets; recorded
// reports whether one has a history. It takes broker.mu (read), only for
// the lookup: the sends happen after it is released.
func (b *broker) targets(topic wamp.URI, ts []target) (_ []target, recorded bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	b.index.Match(string(topic), func(_ string, m uriindex.Match, sub *subscription) bool {
		if sub.set == nil && sub.hist == nil {
			return true
		}
		if sub.set != nil {
			sub.set.acquire()
		}
		recorded = recorded || sub.hist != nil
		ts = append(ts, target{id: sub.id, match: m, set: sub.set, hist: sub.hist})
		return true
	})
	return ts, recorded
}

// prepare validates and authorizes a publication (of pub acting for as)
// and reads its options.
func (b *broker) prepare(pub *session, as *wamp.Identity, topic wamp.URI, opts wamp.Dict) (*outEvent, error) {
	rm := b.realm
	if !rm.validURI(topic, wamp.MatchExact) || pub != nil && restricted(topic) {
		return nil, wamp.Errorf(wamp.ErrInvalidURI, "invalid topic %q", topic)
	}
	disclose := false
	ff, err := optForwardFor(opts)
	if err != nil {
		return nil, err
	}
	if pub != nil {
		perm, err := pub.authorizeAs(as, auth.ActionPublish, topic, opts)
		if err != nil {
			return nil, err
		}
		me, err := optBool(opts, wamp.OptDiscloseMe, false)
		if err != nil {
			return nil, err
		}
		disclose = me || perm.Disclose
	}
	e := &outEvent{topic: topic, publication: wamp.GlobalID(), details: publisherDetails(pub, as, disclose, ff)}
	if err := e.filter.parse(pub, opts); err != nil {
		return nil, err
	}
	return e, nil
}

// outEvent is one publication on its way to the subscribers. It is read
// only once built, so that retained events can keep it.
type outEvent struct {
	topic       wamp.URI
	publication wamp.ID
	details     wamp.Dict // for exact subscriptions; never modified
	payload     wamp.Payload
	filter      pubFilter
}

// deliver sends the event to the subscribers of t that the filter allows:
// one EVENT, shared, so that each serializer encodes it once (a session
// that acts for others gets its own, addressed, when the publication has
// an Audience), counted in
// the publisher's stripe (sendFrom; each subscriber's own for an event of
// the router, pub nil). No lock is needed: t.set does not change while
// the publish holds it.
func (e *outEvent) deliver(t target, pub *session) {
	var msg wamp.Message
	for _, r := range t.set.sessions {
		if !e.filter.allows(r) {
			continue
		}
		by := pub
		if by == nil {
			by = r
		}
		if e.filter.Audience != nil && r.actsFor() {
			r.sendFrom(by, e.addressed(t.id, t.match, false), wamp.TypeEvent)
			continue
		}
		if msg == nil {
			msg = wamp.NewShared(e.event(t.id, t.match, false))
		}
		r.sendFrom(by, msg, wamp.TypeEvent)
	}
}

// addressed is the EVENT of event for a session that acts for others,
// with the publication's Audience (see wamp.Addressed).
func (e *outEvent) addressed(sub wamp.ID, m uriindex.Match, retained bool) *wamp.Addressed {
	return &wamp.Addressed{Event: e.event(sub, m, retained), Audience: e.filter.Audience}
}

// detached is a copy of e whose raw payload, the same bytes, has decoded
// nothing (see wamp.Raw.Fresh).
func (e *outEvent) detached() *outEvent {
	c := *e
	c.payload = c.payload.Fresh()
	return &c
}

// forSession is the EVENT of e for subscriber s: addressed when s acts
// for others and the publication has an Audience.
func (e *outEvent) forSession(s *session, sub wamp.ID, m uriindex.Match, retained bool) wamp.Message {
	if e.filter.Audience != nil && s.actsFor() {
		return e.addressed(sub, m, retained)
	}
	return e.event(sub, m, retained)
}

// event builds the EVENT for a subscription; pattern subscriptions get the
// topic, retained events retained: true.
func (e *outEvent) event(sub wamp.ID, m uriindex.Match, retained bool) *wamp.Event {
	d := e.details
	if m != uriindex.Exact || retained {
		d = maps.Clone(d)
		if d == nil {
			d = wamp.Dict{}
		}
		if m != uriindex.Exact {
			d[wamp.OptTopic] = string(e.topic)
		}
		if retained {
			d[wamp.OptRetained] = true
		}
	}
	return &wamp.Event{Subscription: sub, Publication: e.publication, Details: d,
		Args: e.payload.Args, Kwargs: e.payload.Kwargs, Raw: e.payload.Raw}
}

// passthru checks the payload passthru options of the publication (of
// pub; nil: the router) and copies them into e's details.
func (e *outEvent) passthru(pub *session, opts wamp.Dict, p wamp.Payload) error {
	var form passthruForm
	var err error
	if pub != nil {
		form, err = pub.checkPassthruFrom(pptPublisher, opts, p)
	} else {
		form, err = checkPassthru(opts, p)
	}
	if form != noPassthru && err == nil {
		copyPassthru(e.details, opts)
	}
	return err
}

// publisherDetails are the EVENT details that disclose the publisher (the
// original one and forward_for for a forwarded event).
func publisherDetails(pub *session, as *wamp.Identity, disclose bool, ff forwardFor) wamp.Dict {
	d := wamp.Dict{}
	if pub != nil && disclose {
		ff.disclose(d, pub, as, publisherKeys)
	}
	return d
}

// publishInternal publishes an event of the router itself (meta events,
// testaments), to every subscriber; opts may carry exclude/eligible lists.
// Only a limit can refuse a testament (that on retained events, when it
// asks for retain; its options were checked when it was added): the
// refusal is counted and logged, rate-limited, as every other. It must be
// called with no lock held.
func (rm *realm) publishInternal(topic wamp.URI, opts wamp.Dict, args wamp.List, kwargs wamp.Object) {
	rm.publishPayload(topic, opts, wamp.Payload{Args: args, Kwargs: kwargs})
}

// publishPayload is publishInternal with a payload as it came.
func (rm *realm) publishPayload(topic wamp.URI, opts wamp.Dict, p wamp.Payload) {
	_, err := rm.broker.publish(nil, topic, opts, p)
	if err == nil {
		return
	}
	var le *limitError
	if errors.As(err, &le) {
		rm.limits.note(nil, le)
		return
	}
	rm.router.log.Warn("internal publish failed", "realm", string(rm.name), "topic", string(topic), "err", err)
}
