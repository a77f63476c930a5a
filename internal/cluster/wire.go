package cluster

import (
	"encoding/binary"
	"errors"
)

// The wire formats between nodes: binary, versioned by their first byte.
//
//	envelope:  1 | kind | from epoch (8) | to epoch (8) | seq (8) | uvarint len | from name | body
//	heartbeat: 1 | flags | epoch (8) | uvarint len | name | uvarint len | config hash
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
}

func appendHeartbeat(b []byte, h heartbeat) []byte {
	b = append(b, wireVersion, h.flags)
	b = binary.BigEndian.AppendUint64(b, h.member.Epoch)
	b = appendString(b, h.member.Name)
	return appendString(b, h.hash)
}

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
	if err != nil || len(rest) != 0 || name == "" {
		return h, errWire
	}
	h.member.Name, h.hash = name, hash
	return h, nil
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
