package cluster

import (
	"encoding/binary"
	"fmt"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// The wire formats of the session queries, versioned by their first byte
// like the node's own (wire.go); strings are uvarint-length-prefixed, IDs
// and counts uvarints.
//
//	query:  1 | member name | epoch (8) | realm | op | flags | session |
//	        roles | value | reason | message | uri | match | limit
//	answer: 1 | member name | epoch (8) | count | ids | details | too large
//
// flags: 1 the query has roles (an empty list selects none), 2 it has a
// message. match is a byte (uriindex.Match), limit a uvarint. details
// are a MessagePack dictionary, empty for none; too large (a uvarint) is
// 0, or the bytes of the member's answer that NATS could not carry (the
// answer then has nothing else).
const (
	queryHasRoles byte = 1 << iota
	queryHasMessage
)

// maxLimit is the largest limit a query carries: a larger one is sent as
// this (no history holds as many events).
const maxLimit = 1<<31 - 1

// query is a session query and who asks it about which realm.
type query struct {
	from  Member
	realm wamp.URI
	router.MetaQuery
}

// answer is one member's answer to a query, or tooLarge: the bytes of
// one it could not send.
type answer struct {
	member Member
	router.MetaAnswer
	tooLarge int
}

func appendMember(b []byte, m Member) []byte {
	b = appendString(b, m.Name)
	return binary.BigEndian.AppendUint64(b, m.Epoch)
}

func appendQuery(b []byte, q query) ([]byte, error) {
	if q.Op < router.SessionCount || q.Op > router.LastMetaOp {
		return b, fmt.Errorf("cluster: session query: op %d", q.Op)
	}
	if q.Match > uriindex.Wildcard || q.Limit < 0 {
		return b, fmt.Errorf("cluster: session query: match %d, limit %d", q.Match, q.Limit)
	}
	var flags byte
	if q.HasAuthRoles {
		flags |= queryHasRoles
	}
	if q.HasMessage {
		flags |= queryHasMessage
	}
	b = appendMember(append(b, wireVersion), q.from)
	b = appendString(b, string(q.realm))
	b = append(b, byte(q.Op), flags)
	b = binary.AppendUvarint(b, uint64(q.ID))
	b = appendStrings(b, q.AuthRoles)
	b = appendString(b, q.Value)
	b = appendString(b, string(q.Reason))
	b = appendString(b, q.Message)
	b = appendString(b, string(q.URI))
	b = append(b, byte(q.Match))
	return binary.AppendUvarint(b, uint64(min(q.Limit, maxLimit))), nil
}

// decodeQuery decodes b, which it does not retain.
func decodeQuery(b []byte) (query, error) {
	r := wireReader{b: b}
	if r.byte() != wireVersion {
		return query{}, errWire
	}
	q := query{from: r.member(), realm: wamp.URI(r.string())}
	q.Op = router.MetaOp(r.byte())
	flags := r.byte()
	q.HasAuthRoles, q.HasMessage = flags&queryHasRoles != 0, flags&queryHasMessage != 0
	q.ID = r.id()
	q.AuthRoles = r.strings()
	q.Value, q.Reason, q.Message = r.string(), wamp.URI(r.string()), r.string()
	q.URI, q.Match = wamp.URI(r.string()), uriindex.Match(r.byte())
	limit := r.uvarint()
	q.Limit = int(min(limit, maxLimit))
	switch {
	case r.err != nil:
		return query{}, r.err
	case len(r.b) > 0 || q.Op < router.SessionCount || q.Op > router.LastMetaOp || q.Match > uriindex.Wildcard || limit > maxLimit:
		return query{}, errWire
	}
	return q, nil
}

func appendAnswer(b []byte, a answer) ([]byte, error) {
	b = appendMember(append(b, wireVersion), a.member)
	b = binary.AppendUvarint(b, uint64(a.Count))
	b = appendIDs(b, a.IDs)
	b, err := appendDict(b, a.Details)
	return binary.AppendUvarint(b, uint64(a.tooLarge)), err
}

// decodeAnswer decodes b, which it does not retain. Details are nil for
// none.
func decodeAnswer(b []byte) (answer, error) {
	r := wireReader{b: b}
	if r.byte() != wireVersion {
		return answer{}, errWire
	}
	a := answer{member: r.member()}
	a.Count = int(r.uvarint() & (1<<31 - 1))
	a.IDs = r.ids()
	details := r.bytes()
	a.tooLarge = int(r.uvarint() & (1<<31 - 1))
	if r.err != nil || len(r.b) > 0 {
		return answer{}, errWire
	}
	if len(details) > 0 {
		d, err := decodeDetails(details)
		if err != nil {
			return answer{}, err
		}
		a.Details = d
	}
	return a, nil
}

func (r *wireReader) member() Member {
	return Member{Name: r.string(), Epoch: r.uint64()}
}
