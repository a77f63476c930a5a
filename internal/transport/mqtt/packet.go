package mqtt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Control packet types (MQTT 3.1.1, 2.2.1).
const (
	typeConnect     = 1
	typeConnack     = 2
	typePublish     = 3
	typePuback      = 4
	typePubrec      = 5
	typePubrel      = 6
	typePubcomp     = 7
	typeSubscribe   = 8
	typeSuback      = 9
	typeUnsubscribe = 10
	typeUnsuback    = 11
	typePingreq     = 12
	typePingresp    = 13
	typeDisconnect  = 14
)

// ErrMalformed is wrapped by every error about a packet that breaks MQTT
// 3.1.1; the connection is closed, as the specification says.
var ErrMalformed = errors.New("mqtt: malformed packet")

// ErrTooBig: a packet's remaining length is over the maximum message size.
var ErrTooBig = errors.New("mqtt: packet too big")

func malformed(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, a...))
}

// packet is one control packet as read: its type, the four flag bits and
// the variable header and payload.
type packet struct {
	typ   byte
	flags byte
	body  []byte
}

// readPacket reads one packet whose remaining length is at most max.
func readPacket(r *bufio.Reader, max int) (packet, error) {
	h, err := r.ReadByte()
	if err != nil {
		return packet{}, err
	}
	n, err := readLength(r)
	if err != nil {
		return packet{}, noEOF(err)
	}
	if n > max {
		return packet{}, fmt.Errorf("%w: %d bytes, the maximum is %d", ErrTooBig, n, max)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return packet{}, noEOF(err)
	}
	return packet{typ: h >> 4, flags: h & 0x0f, body: body}, nil
}

// noEOF turns an end of stream inside a packet into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readLength reads the remaining length: at most four octets of seven bits
// each, least significant first (2.2.3).
func readLength(r io.ByteReader) (int, error) {
	n, shift := 0, 0
	for i := 0; i < 4; i++ {
		b, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		n |= int(b&0x7f) << shift
		if b&0x80 == 0 {
			return n, nil
		}
		shift += 7
	}
	return 0, malformed("remaining length over four octets")
}

// appendLength appends n as a remaining length.
func appendLength(b []byte, n int) []byte {
	for {
		d := byte(n & 0x7f)
		n >>= 7
		if n > 0 {
			d |= 0x80
		}
		b = append(b, d)
		if n == 0 {
			return b
		}
	}
}

// fields reads a packet's variable header and payload.
type fields struct {
	b   []byte
	err error
}

func (f *fields) uint16() uint16 {
	if f.err != nil {
		return 0
	}
	if len(f.b) < 2 {
		f.err = malformed("truncated")
		return 0
	}
	v := uint16(f.b[0])<<8 | uint16(f.b[1])
	f.b = f.b[2:]
	return v
}

func (f *fields) byte() byte {
	if f.err != nil {
		return 0
	}
	if len(f.b) < 1 {
		f.err = malformed("truncated")
		return 0
	}
	v := f.b[0]
	f.b = f.b[1:]
	return v
}

// binary reads two-octet length-prefixed bytes (1.5.3, 3.1.3.3).
func (f *fields) binary() []byte {
	n := int(f.uint16())
	if f.err != nil {
		return nil
	}
	if len(f.b) < n {
		f.err = malformed("truncated")
		return nil
	}
	v := f.b[:n:n]
	f.b = f.b[n:]
	return v
}

// string reads a UTF-8 string: valid, without U+0000 (1.5.3).
func (f *fields) string() string {
	b := f.binary()
	if f.err == nil && (!utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0) {
		f.err = malformed("string is not valid UTF-8")
	}
	return string(b)
}

// rest returns what is left.
func (f *fields) rest() []byte {
	v := f.b
	f.b = nil
	return v
}

// end reports an error if anything is left or went wrong.
func (f *fields) end() error {
	if f.err == nil && len(f.b) > 0 {
		f.err = malformed("%d bytes left over", len(f.b))
	}
	return f.err
}

// appendString appends a two-octet length-prefixed string.
func appendString(b []byte, s string) []byte {
	return append(append(b, byte(len(s)>>8), byte(len(s))), s...)
}
