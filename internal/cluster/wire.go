package cluster

import (
	"encoding/binary"
	"errors"
	"slices"

	"github.com/junction-wamp/junction/wamp"
)

// The wire formats between nodes: binary, versioned by their first byte.
//
//	envelope:  1 | kind | from epoch (8) | to epoch (8) | seq (8) | uvarint len | from name | body
//	heartbeat: 1 | flags | epoch (8) | uvarint len | name | uvarint len | config hash
//	           [ | members lost | members heard ]
//	members:   uvarint count | (epoch (8) | uvarint len | name) * count
//
// The heartbeat's two lists, the members its sender holds lost and those
// it hears, are there only when one of them holds a member at least: a
// heartbeat has one encoding.
const wireVersion = 1

// Heartbeat flags.
const (
	hbLeave    = 1 << iota // the member leaves cleanly: forget it now
	hbIsolated             // the member is isolated: it rejoins with a new epoch
)

var errWire = errors.New("cluster: malformed message")

// envelope is one message of Send.
type envelope struct {
	kind    Kind
	from    Member
	toEpoch uint64
	seq     uint64
	body    []byte // aliases the decoded buffer
}

// appendEnvelope appends e's encoding to b.
func appendEnvelope(b []byte, e envelope) []byte {
	b = append(b, wireVersion, byte(e.kind))
	b = binary.BigEndian.AppendUint64(b, e.from.Epoch)
	b = binary.BigEndian.AppendUint64(b, e.toEpoch)
	b = binary.BigEndian.AppendUint64(b, e.seq)
	b = appendString(b, e.from.Name)
	return append(b, e.body...)
}

// decodeEnvelope decodes b; the body aliases b.
func decodeEnvelope(b []byte) (envelope, error) {
	var e envelope
	if len(b) < 26 || b[0] != wireVersion {
		return e, errWire
	}
	e.kind = Kind(b[1])
	e.from.Epoch = binary.BigEndian.Uint64(b[2:])
	e.toEpoch = binary.BigEndian.Uint64(b[10:])
	e.seq = binary.BigEndian.Uint64(b[18:])
	name, rest, err := readString(b[26:])
	if err != nil {
		return e, err
	}
	e.from.Name, e.body = name, rest
	return e, nil
}

// heartbeat is one member's announcement.
type heartbeat struct {
	flags  byte
	member Member
	hash   string
	// lost are the members its sender holds lost (not left): it drops
	// what they send. A member that finds itself there while it hears the
	// sender is cut off from it in one direction.
	lost []Member
	// heard are the members its sender hears (live to it), itself left
	// out: a member lost to another is reaped only once no member that
	// other hears still hears it (agree.go).
	heard []Member
}

func appendHeartbeat(b []byte, h heartbeat) []byte {
	b = append(b, wireVersion, h.flags)
	b = binary.BigEndian.AppendUint64(b, h.member.Epoch)
	b = appendString(b, h.member.Name)
	b = appendString(b, h.hash)
	if len(h.lost) == 0 && len(h.heard) == 0 {
		return b
	}
	return appendMembers(appendMembers(b, h.lost), h.heard)
}

// appendMembers appends a heartbeat's list of members to b.
func appendMembers(b []byte, ms []Member) []byte {
	b = binary.AppendUvarint(b, uint64(len(ms)))
	for _, m := range ms {
		b = binary.BigEndian.AppendUint64(b, m.Epoch)
		b = appendString(b, m.Name)
	}
	return b
}

// lists reports whether h's sender holds m lost.
func (h *heartbeat) lists(m Member) bool { return slices.Contains(h.lost, m) }

func decodeHeartbeat(b []byte) (heartbeat, error) {
	var h heartbeat
	if len(b) < 10 || b[0] != wireVersion {
		return h, errWire
	}
	h.flags = b[1]
	h.member.Epoch = binary.BigEndian.Uint64(b[2:])
	name, rest, err := readString(b[10:])
	if err != nil {
		return h, err
	}
	hash, rest, err := readString(rest)
	if err != nil || name == "" {
		return h, errWire
	}
	h.member.Name, h.hash = name, hash
	if len(rest) == 0 {
		return h, nil
	}
	r := wireReader{b: rest}
	h.lost, h.heard = r.members(), r.members()
	if r.err != nil || len(r.b) != 0 || len(h.lost)+len(h.heard) == 0 {
		return heartbeat{}, errWire // two empty lists are written as none
	}
	return h, nil
}

// members reads a heartbeat's list of members; an empty one is nil.
func (r *wireReader) members() []Member {
	n := r.count()
	if n == 0 {
		return nil
	}
	ms := make([]Member, 0, n)
	for range n {
		m := Member{Epoch: r.uint64()}
		m.Name = r.string()
		ms = append(ms, m)
	}
	return ms
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// uvarintLen is the length of n's shortest encoding, the only one
// readString accepts (so that a message has one encoding).
func uvarintLen(n uint64) int {
	var b [binary.MaxVarintLen64]byte
	return len(binary.AppendUvarint(b[:0], n))
}

// readString reads a length-prefixed string of b and returns the rest.
func readString(b []byte) (string, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) || k != uvarintLen(n) {
		return "", nil, errWire
	}
	end := k + int(n)
	return string(b[k:end]), b[end:], nil
}

// wireReader reads the fields of a message in turn; the first error
// sticks and every later read gives a zero value.
type wireReader struct {
	b   []byte
	err error
}

func (r *wireReader) fail() { r.err, r.b = errWire, nil }

func (r *wireReader) byte() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *wireReader) uint64() uint64 {
	if len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

// uvarint reads an unsigned varint in its shortest encoding, the only
// one accepted (so that a message has one encoding).
func (r *wireReader) uvarint() uint64 {
	v, k := binary.Uvarint(r.b)
	if k <= 0 || k != uvarintLen(v) {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return v
}

// id reads a WAMP ID, 0 to 2^53.
func (r *wireReader) id() wamp.ID {
	v := r.uvarint()
	if v > wamp.MaxID {
		r.fail()
		return 0
	}
	return wamp.ID(v)
}

func (r *wireReader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *wireReader) string() string { return string(r.bytes()) }

// count reads a list's length, which cannot exceed the bytes left (each
// item takes one at least): no allocation beyond the input's size.
func (r *wireReader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *wireReader) ids() []wamp.ID {
	n := r.count()
	if n == 0 {
		return nil
	}
	ids := make([]wamp.ID, 0, n)
	for range n {
		ids = append(ids, r.id())
	}
	return ids
}

func (r *wireReader) strings() []string {
	n := r.count()
	if n == 0 {
		return nil
	}
	ss := make([]string, 0, n)
	for range n {
		ss = append(ss, r.string())
	}
	return ss
}
