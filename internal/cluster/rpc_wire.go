package cluster

import (
	"encoding/binary"
	"fmt"

	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// The wire formats of RPC, binary, versioned by their first byte like the
// node's own (wire.go). Strings and byte strings are uvarint-length-
// prefixed, IDs and counts uvarints.
//
//	call:    1 | op | realm | callee | request | the op's fields:
//	         invocation: registration | details | payload
//	         interrupt:  options
//	         result:     details | payload
//	         error:      details | error URI | payload
//	         reset:      none
//	record:  1 | id | realm | match | procedure | policy | next order |
//	         count | callees: member name | epoch (8) | session | order | flags
//
// Details and options are a MessagePack dictionary (empty for none); a
// payload is its serializer, its number of elements (0, 1, 2) and their
// bytes: a raw payload keeps its bytes and serializer (codec.PayloadBytes).
const (
	opInvocation byte = 1 + iota
	opInterrupt
	opResult
	opError
	// opReset: the sender lost messages of the receiver (a gap): the
	// receiver ends the calls between the two nodes, as the sender did.
	opReset
)

// callMsg is one message of a call between nodes, about the callee
// session callee (on the receiver for INVOCATION and INTERRUPT, on the
// sender for RESULT and ERROR). m is nil for a reset.
type callMsg struct {
	realm  wamp.URI
	callee wamp.ID
	m      wamp.Message
}

// appendCall appends c's encoding to b.
func appendCall(b []byte, c callMsg) ([]byte, error) {
	var op byte
	var req wamp.ID
	switch m := c.m.(type) {
	case *wamp.Invocation:
		op, req = opInvocation, m.Request
	case *wamp.Interrupt:
		op, req = opInterrupt, m.Request
	case *wamp.Result:
		op, req = opResult, m.Request
	case *wamp.Error:
		op, req = opError, m.Request
	case nil:
		op = opReset
	default:
		return b, fmt.Errorf("cluster: no call message: %T", c.m)
	}
	b = append(b, wireVersion, op)
	b = appendString(b, string(c.realm))
	b = binary.AppendUvarint(b, uint64(c.callee))
	b = binary.AppendUvarint(b, uint64(req))
	return appendCallFields(b, c.m)
}

func appendCallFields(b []byte, m wamp.Message) ([]byte, error) {
	var err error
	switch m := m.(type) {
	case *wamp.Invocation:
		b = binary.AppendUvarint(b, uint64(m.Registration))
		if b, err = appendDict(b, m.Details); err != nil {
			return b, err
		}
	case *wamp.Interrupt:
		return appendDict(b, m.Options)
	case *wamp.Result:
		if b, err = appendDict(b, m.Details); err != nil {
			return b, err
		}
	case *wamp.Error:
		if b, err = appendDict(b, m.Details); err != nil {
			return b, err
		}
		b = appendString(b, string(m.Error))
	default:
		return b, nil
	}
	return appendPayload(b, wamp.PayloadOf(m))
}

func appendDict(b []byte, d wamp.Dict) ([]byte, error) {
	if len(d) == 0 {
		return appendString(b, ""), nil
	}
	v, err := codec.EncodeValue(codec.Msgpack, d)
	if err != nil {
		return b, fmt.Errorf("cluster: call details: %w", err)
	}
	return appendString(b, string(v)), nil
}

func appendPayload(b []byte, p wamp.Payload) ([]byte, error) {
	ser, v, n, err := codec.PayloadBytes(p)
	if err != nil {
		return b, fmt.Errorf("cluster: call payload: %w", err)
	}
	b = append(b, byte(ser), byte(n))
	return appendString(b, string(v)), nil
}

// decodeCall decodes b, which it does not retain.
func decodeCall(b []byte) (callMsg, error) {
	r := wireReader{b: b}
	if r.byte() != wireVersion {
		return callMsg{}, errWire
	}
	op := r.byte()
	c := callMsg{realm: wamp.URI(r.string()), callee: r.id()}
	req := r.id()
	switch op {
	case opInvocation:
		m := &wamp.Invocation{Request: req, Registration: r.id(), Details: r.dict()}
		m.Args, m.Kwargs, m.Raw = r.payload()
		c.m = m
	case opInterrupt:
		c.m = &wamp.Interrupt{Request: req, Options: r.dict()}
	case opResult:
		m := &wamp.Result{Request: req, Details: r.dict()}
		m.Args, m.Kwargs, m.Raw = r.payload()
		c.m = m
	case opError:
		m := &wamp.Error{RequestType: wamp.TypeCall, Request: req, Details: r.dict(), Error: wamp.URI(r.string())}
		m.Args, m.Kwargs, m.Raw = r.payload()
		c.m = m
	case opReset:
	default:
		r.fail()
	}
	if r.err != nil || len(r.b) != 0 {
		return callMsg{}, errWire
	}
	return c, nil
}

// record is one record of the reg table: a registration and its callees
// across the cluster, in registration order.
type record struct {
	id        wamp.ID
	realm     wamp.URI
	match     string
	procedure wamp.URI
	policy    string
	next      uint64 // the order of the next callee
	callees   []entry
	rev       uint64 // the table's revision it was read at (not encoded)
}

// entry is one callee of a record.
type entry struct {
	member    Member
	session   wamp.ID
	order     uint64
	canCancel bool
}

const entryCanCancel = 1

func appendRecord(b []byte, r *record) []byte {
	b = append(b, wireVersion)
	b = binary.AppendUvarint(b, uint64(r.id))
	b = appendString(b, string(r.realm))
	b = appendString(b, r.match)
	b = appendString(b, string(r.procedure))
	b = appendString(b, r.policy)
	b = binary.AppendUvarint(b, r.next)
	b = binary.AppendUvarint(b, uint64(len(r.callees)))
	for _, e := range r.callees {
		b = appendString(b, e.member.Name)
		b = binary.BigEndian.AppendUint64(b, e.member.Epoch)
		b = binary.AppendUvarint(b, uint64(e.session))
		b = binary.AppendUvarint(b, e.order)
		var flags byte
		if e.canCancel {
			flags |= entryCanCancel
		}
		b = append(b, flags)
	}
	return b
}

// decodeRecord decodes b, which it does not retain.
func decodeRecord(b []byte) (*record, error) {
	r := wireReader{b: b}
	if r.byte() != wireVersion {
		return nil, errWire
	}
	rec := &record{id: r.id(), realm: wamp.URI(r.string()), match: r.string(), procedure: wamp.URI(r.string()),
		policy: r.string(), next: r.uvarint()}
	n := r.uvarint()
	if n > uint64(len(r.b)) { // an entry takes more than a byte
		r.fail()
	}
	for range n {
		e := entry{member: Member{Name: r.string(), Epoch: r.uint64()}, session: r.id(), order: r.uvarint()}
		e.canCancel = r.byte()&entryCanCancel != 0
		rec.callees = append(rec.callees, e)
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errWire
	}
	return rec, nil
}

// dict reads a MessagePack dictionary; empty bytes are an empty one.
func (r *wireReader) dict() wamp.Dict {
	b := r.string()
	d := wamp.Dict{}
	if r.err != nil || b == "" {
		return d
	}
	v, err := codec.DecodeValue(codec.Msgpack, []byte(b))
	obj, ok := v.(wamp.Object)
	if err != nil || !ok {
		r.fail()
		return d
	}
	for _, kv := range obj {
		d[kv.Key] = kv.Value
	}
	return d
}

func (r *wireReader) payload() (wamp.List, wamp.Object, *wamp.Raw) {
	ser, n := r.byte(), r.byte()
	b := r.string()
	if r.err != nil {
		return nil, nil, nil
	}
	p, err := codec.Payload(wamp.Serializer(ser), []byte(b), int(n))
	if err != nil {
		r.fail()
		return nil, nil, nil
	}
	return p.Args, p.Kwargs, p.Raw
}
