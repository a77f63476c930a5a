package router

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// EventFabric is what a realm's broker tells the other nodes of a cluster.
type EventFabric interface {
	// Interest reports that a subscription has its first subscriber on
	// this node (on) or that its last one here is gone (!on). It is called
	// with broker.mu held, in the order of the changes: it must neither
	// block nor call back into the router (it queues the change).
	Interest(sub Subscription, on bool)
	// Published hands over a publication of this node once it was
	// delivered here, on the publisher's goroutine with no lock held, so
	// that one publisher's publications come in their order. p and what
	// it holds are read only; the fabric may keep them.
	Published(p *Publication)
}

// Subscription is a topic pattern: what a node's interest is in.
type Subscription struct {
	Topic wamp.URI
	Match uriindex.Match
}

// Publication is one event as it travels between nodes.
type Publication struct {
	Topic wamp.URI
	ID    wamp.ID // the publication ID, the same on every node
	// Details are those of an EVENT of an exact subscription: the
	// publisher's identity when disclosed (publisher, publisher_authid,
	// publisher_authrole, forward_for); never modified.
	Details wamp.Dict
	Payload wamp.Payload // as received: a raw payload passes through
	Filter  Filter       // who may receive it
	// Retain: the publication is its topic's retained event (it asked
	// for retain, and its node kept it).
	Retain bool
}

// Filter selects the receivers of a publication: Publisher is the
// publishing session when it asked exclude_me (0 otherwise), Exclude and
// Eligible are PUBLISH's lists of session IDs (an Eligible list given
// empty allows nobody, none everyone: HasEligible tells them apart), and
// Audience its lists by authid and authrole (nil without any).
type Filter struct {
	Publisher         wamp.ID
	Exclude, Eligible []wamp.ID
	HasEligible       bool
	Audience          *wamp.Audience
}

// Deliver sends a publication of another node to this node's subscribers
// of every matching subscription, as a local publish does, the filter
// included. The cluster calls it for one origin node at a time, in the
// order of that node's publications.
func (l *RealmLink) Deliver(p *Publication) {
	b := l.rm.broker
	e := remoteEvent(p)
	var buf [4]target
	ts, _ := b.targets(p.Topic, buf[:0])
	for _, t := range ts {
		if t.set != nil {
			e.deliver(t, nil)
			t.set.release()
		}
	}
}

// Retain keeps a publication of another node as the retained event of
// its topic on this node, in place of the one before, as a publication
// with retain does here, without delivering it; the publication that is
// retained already (its own node's, seen again) changes nothing. The
// realm's limits do not refuse it (see broker.keep). The cluster calls it
// for a realm in the order of the cluster's table; it may call it from
// Fabric.Realm, once the realm is made.
func (l *RealmLink) Retain(p *Publication) {
	l.rm.broker.keep(remoteEvent(p), wamp.PayloadSize(p.Topic, p.Payload, nil))
}

// remoteEvent is the outEvent of another node's publication.
func remoteEvent(p *Publication) *outEvent {
	e := &outEvent{topic: p.Topic, publication: p.ID, details: p.Details, payload: p.Payload,
		filter: pubFilter{Filter: p.Filter}}
	e.filter.simplify()
	return e
}

// interest tells the fabric that sub gained its first subscriber here
// (on) or lost its last one. b.mu must be held for writing.
func (b *broker) interest(sub *subscription, on bool) {
	if b.events != nil {
		b.events.Interest(Subscription{Topic: sub.topic, Match: sub.match}, on)
	}
}

// published hands e over to the fabric, when there is one; retained when
// it was kept as its topic's retained event.
func (b *broker) published(e *outEvent, retained bool) {
	if b.events == nil {
		return
	}
	b.events.Published(&Publication{Topic: e.topic, ID: e.publication, Details: e.details,
		Payload: e.payload, Filter: e.filter.Filter, Retain: retained})
}

// newSubscriptionID returns the ID of a new subscription of (topic, m):
// the next of the router's sequence on one node; in a cluster a hash of
// (realm, match, topic), so that every node gives a subscription the same
// ID without asking the others. An ID that another subscription of the
// realm holds (a collision, about one in 10^8 at 10^4 subscriptions) is
// moved to the next free one. b.mu must be held for writing.
func (b *broker) newSubscriptionID(topic wamp.URI, m uriindex.Match) wamp.ID {
	if b.events == nil {
		return b.realm.router.subIDs.Next()
	}
	id := clusterID("subscription", b.realm.name, m, topic)
	for b.byID[id] != nil {
		id = id%wamp.MaxID + 1
	}
	return id
}

// clusterID is a keyed hash of (kind, realm, match, uri) in the IDs'
// range, 1 to 2^53: the same on every node of a cluster.
func clusterID(kind string, realm wamp.URI, m uriindex.Match, uri wamp.URI) wamp.ID {
	h := sha256.New()
	for _, s := range []string{"junction.cluster." + kind, string(realm), m.String(), string(uri)} {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	sum := h.Sum(nil)
	return wamp.ID(binary.BigEndian.Uint64(sum)%wamp.MaxID + 1)
}
