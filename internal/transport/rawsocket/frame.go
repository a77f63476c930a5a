package rawsocket

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/junction-wamp/junction/wamp"
)

// Frame types, the low 3 bits of a frame's first octet; the upper 5 bits
// are reserved.
const (
	frameMessage = 0
	framePing    = 1
	framePong    = 2
)

// maxFrameLen is the largest length the 3-octet field can carry.
const maxFrameLen = 1<<24 - 1

// ErrMessageTooBig: a frame over the negotiated maximum length; incoming,
// the connection is closed; outgoing, Send returns it and nothing is sent.
var ErrMessageTooBig = errors.New("rawsocket: message too big")

// readFrame reads one frame of at most limit payload bytes; hdr is scratch
// space. The payload is a fresh slice. Bad frames give errors wrapping
// wamp.ErrProtocol or ErrMessageTooBig.
func readFrame(r io.Reader, hdr *[4]byte, limit int) (byte, []byte, error) {
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	typ := hdr[0]
	if typ > framePong {
		return 0, nil, fmt.Errorf("rawsocket: frame type octet %#x: reserved bits or type: %w", typ, wamp.ErrProtocol)
	}
	n := int(hdr[1])<<16 | int(hdr[2])<<8 | int(hdr[3])
	if n > limit {
		return 0, nil, fmt.Errorf("%w: %d bytes, limit %d", ErrMessageTooBig, n, limit)
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, unexpected(err)
	}
	return typ, payload, nil
}

// unexpected turns an EOF inside a frame into io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// writeFrame writes a frame of type typ into w; len(payload) must be at
// most maxFrameLen.
func writeFrame(w *bufio.Writer, hdr *[4]byte, typ byte, payload []byte) error {
	n := len(payload)
	*hdr = [4]byte{typ, byte(n >> 16), byte(n >> 8), byte(n)}
	w.Write(hdr[:])
	_, err := w.Write(payload)
	return err
}
