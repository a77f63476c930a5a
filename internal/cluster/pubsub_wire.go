package cluster

import (
	"encoding/binary"
	"fmt"
	"reflect"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// The wire formats of PubSub, binary, versioned by their first byte like
// the node's own (wire.go). Strings are uvarint-length-prefixed, IDs
// uvarints, lists a uvarint count and their items.
//
//	event:    1 | flags | realm | topic | publication | publisher (exclude_me) |
//	          exclude ids | eligible ids | exclude authids | eligible authids |
//	          exclude authroles | eligible authroles |
//	          details (MessagePack dictionary, empty for none) |
//	          payload serializer | payload elements (0, 1, 2) | payload bytes
//	interest: 1 | match | epoch (8) | member name | realm | topic
//
// An event's flags say which eligible lists were given (an empty one
// allows nobody; none allows everyone) and whether the lists by authid
// and authrole were (the publication's wamp.Audience; they are empty
// otherwise).
const (
	hasEligible = 1 << iota
	hasAudience
	hasEligibleAuthID
	hasEligibleAuthRole
	flagsEnd
)

// remoteEvent is one publication between nodes.
type remoteEvent struct {
	realm wamp.URI
	pub   *router.Publication
}

// appendEvent appends e's encoding to b.
func appendEvent(b []byte, e remoteEvent) ([]byte, error) {
	p, f := e.pub, &e.pub.Filter
	aud := f.Audience
	if aud == nil {
		aud = &wamp.Audience{}
	}
	var flags byte
	for i, has := range []bool{f.HasEligible, f.Audience != nil, aud.HasEligibleAuthID, aud.HasEligibleAuthRole} {
		if has {
			flags |= 1 << i
		}
	}
	b = append(b, wireVersion, flags)
	b = appendString(b, string(e.realm))
	b = appendString(b, string(p.Topic))
	b = binary.AppendUvarint(b, uint64(p.ID))
	b = binary.AppendUvarint(b, uint64(f.Publisher))
	b = appendIDs(appendIDs(b, f.Exclude), f.Eligible)
	b = appendStrings(appendStrings(b, aud.ExcludeAuthID), aud.EligibleAuthID)
	b = appendStrings(appendStrings(b, aud.ExcludeAuthRole), aud.EligibleAuthRole)
	var details []byte
	if len(p.Details) > 0 {
		var err error
		if details, err = codec.EncodeValue(codec.Msgpack, p.Details); err != nil {
			return b, fmt.Errorf("cluster: event details: %w", err)
		}
	}
	b = appendString(b, string(details))
	ser, payload, n, err := codec.PayloadBytes(p.Payload)
	if err != nil {
		return b, fmt.Errorf("cluster: event payload: %w", err)
	}
	b = append(b, byte(ser), byte(n))
	return appendString(b, string(payload)), nil
}

// decodeEvent decodes b, which it does not retain.
func decodeEvent(b []byte) (remoteEvent, error) {
	r := wireReader{b: b}
	if r.byte() != wireVersion {
		return remoteEvent{}, errWire
	}
	flags := r.byte()
	e := remoteEvent{realm: wamp.URI(r.string()), pub: &router.Publication{}}
	p, f := e.pub, &e.pub.Filter
	p.Topic = wamp.URI(r.string())
	p.ID, f.Publisher = r.id(), r.id()
	f.Exclude, f.Eligible = r.ids(), r.ids()
	aud := &wamp.Audience{HasEligibleAuthID: flags&hasEligibleAuthID != 0, HasEligibleAuthRole: flags&hasEligibleAuthRole != 0}
	aud.ExcludeAuthID, aud.EligibleAuthID = r.strings(), r.strings()
	aud.ExcludeAuthRole, aud.EligibleAuthRole = r.strings(), r.strings()
	f.HasEligible = flags&hasEligible != 0
	if flags&hasAudience != 0 {
		f.Audience = aud
	}
	details := r.bytes()
	ser, n := wamp.Serializer(r.byte()), int(r.byte())
	payload := r.bytes()
	if r.err != nil || len(r.b) != 0 || flags >= flagsEnd || f.Audience == nil && !reflect.DeepEqual(*aud, wamp.Audience{}) {
		return remoteEvent{}, errWire
	}
	var err error
	if p.Details, err = decodeDetails(details); err != nil {
		return remoteEvent{}, err
	}
	if p.Payload, err = codec.Payload(ser, payload, n); err != nil {
		return remoteEvent{}, fmt.Errorf("%w: payload: %w", errWire, err)
	}
	return e, nil
}

// decodeDetails decodes an event's details, a MessagePack dictionary;
// empty for none.
func decodeDetails(b []byte) (wamp.Dict, error) {
	d := wamp.Dict{}
	if len(b) == 0 {
		return d, nil
	}
	v, err := codec.DecodeValue(codec.Msgpack, b)
	if err != nil {
		return nil, fmt.Errorf("%w: details: %w", errWire, err)
	}
	obj, ok := v.(wamp.Object)
	if !ok {
		return nil, fmt.Errorf("%w: details are not a dictionary", errWire)
	}
	for _, kv := range obj {
		d[kv.Key] = kv.Value
	}
	return d, nil
}

// interest is one node's record in the sub table: it has local
// subscribers of (realm, match, topic).
type interest struct {
	member Member
	realm  wamp.URI
	sub    router.Subscription
}

func appendInterest(b []byte, in interest) []byte {
	b = append(b, wireVersion, byte(in.sub.Match))
	b = binary.BigEndian.AppendUint64(b, in.member.Epoch)
	b = appendString(b, in.member.Name)
	b = appendString(b, string(in.realm))
	return appendString(b, string(in.sub.Topic))
}

func decodeInterest(b []byte) (interest, error) {
	r := wireReader{b: b}
	var in interest
	if r.byte() != wireVersion {
		return in, errWire
	}
	in.sub.Match = uriindex.Match(r.byte())
	in.member.Epoch = r.uint64()
	in.member.Name = r.string()
	in.realm = wamp.URI(r.string())
	in.sub.Topic = wamp.URI(r.string())
	if r.err != nil || len(r.b) != 0 || in.sub.Match > uriindex.Wildcard || in.member.Name == "" {
		return interest{}, errWire
	}
	return in, nil
}

func appendIDs(b []byte, ids []wamp.ID) []byte {
	b = binary.AppendUvarint(b, uint64(len(ids)))
	for _, id := range ids {
		b = binary.AppendUvarint(b, uint64(id))
	}
	return b
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}
