package rawsocket

import (
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/junction-wamp/junction/wamp/codec"
)

// magic opens every RawSocket handshake.
const magic = 0x7F

// Handshake error codes, sent as the upper nibble of the second octet.
const (
	ErrCodeSerializerUnsupported = 1
	ErrCodeMaxLenUnacceptable    = 2
	ErrCodeReservedBits          = 3
	ErrCodeMaxConnections        = 4
)

// Limits of the length exponent: a maximum message length is 2^(9+n).
const (
	minLenExp = 0
	maxLenExp = 15
)

var errBadMagic = errors.New("rawsocket: handshake: bad magic octet")

// HandshakeError is a refusal received from (or sent to) the other side.
type HandshakeError struct{ Code byte }

func (e *HandshakeError) Error() string {
	switch e.Code {
	case ErrCodeSerializerUnsupported:
		return "rawsocket: handshake refused: serializer unsupported"
	case ErrCodeMaxLenUnacceptable:
		return "rawsocket: handshake refused: maximum message length unacceptable"
	case ErrCodeReservedBits:
		return "rawsocket: handshake refused: use of reserved bits"
	case ErrCodeMaxConnections:
		return "rawsocket: handshake refused: maximum connection count reached"
	}
	return fmt.Sprintf("rawsocket: handshake refused: error %d", e.Code)
}

// hello is a parsed handshake: the serializer and the maximum length that
// its sender is willing to receive.
type hello struct {
	serializer byte
	maxLen     int
}

// parseHello parses a handshake octet quadruple. A bad magic octet gives
// errBadMagic (the connection is dropped without an answer); set reserved
// octets give a HandshakeError to send back.
func parseHello(b [4]byte) (hello, error) {
	if b[0] != magic {
		return hello{}, errBadMagic
	}
	if b[2] != 0 || b[3] != 0 {
		return hello{}, &HandshakeError{Code: ErrCodeReservedBits}
	}
	return hello{serializer: b[1] & 0x0F, maxLen: 1 << (9 + b[1]>>4)}, nil
}

// helloBytes returns the handshake for a serializer and a maximum length,
// which must be a power of two in [2^9, 2^24].
func helloBytes(serializer byte, maxLen int) [4]byte {
	return [4]byte{magic, lenExp(maxLen)<<4 | serializer, 0, 0}
}

// refusalBytes returns the handshake answer refusing with code.
func refusalBytes(code byte) [4]byte { return [4]byte{magic, code << 4, 0, 0} }

// lenExp returns the exponent n of the smallest 2^(9+n) >= size, within
// [0, 15].
func lenExp(size int) byte {
	if size <= 1<<9 {
		return minLenExp
	}
	n := bits.Len(uint(size-1)) - 9
	return byte(min(n, maxLenExp))
}

// roundLen rounds a maximum message size up to the length a handshake can
// announce.
func roundLen(size int) int { return 1 << (9 + lenExp(size)) }

// readAnswer reads the server's answer to a client handshake offering
// serializer, and returns the server's maximum message length.
func readAnswer(r io.Reader, serializer byte) (int, error) {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, fmt.Errorf("rawsocket: handshake: %w", err)
	}
	if b[0] != magic {
		return 0, errBadMagic
	}
	if b[1]&0x0F == 0 {
		return 0, &HandshakeError{Code: b[1] >> 4}
	}
	h, err := parseHello(b)
	if err != nil {
		return 0, err
	}
	if h.serializer != serializer {
		return 0, fmt.Errorf("rawsocket: handshake: server answered serializer %d, want %d", h.serializer, serializer)
	}
	return h.maxLen, nil
}

// serverHello decides the server's answer to a client handshake: the codec
// and the client's maximum length, or the refusal code to send.
func serverHello(b [4]byte, allowed func(codec.Codec) bool) (codec.Codec, int, error) {
	h, err := parseHello(b)
	if err != nil {
		return nil, 0, err
	}
	c, ok := codec.ByRawSocketID(h.serializer)
	if !ok || !allowed(c) {
		return nil, 0, &HandshakeError{Code: ErrCodeSerializerUnsupported}
	}
	return c, h.maxLen, nil
}
