package codec

import (
	"bytes"
	"encoding/binary"
	"math"
)

// Batched subprotocols carry several messages in one WebSocket message, as
// autobahn does: JSON appends the byte 0x18 after every message; binary
// formats prefix every message with its length, a 4-byte big-endian integer.
const jsonBatchSep = 0x18

// SplitBatch returns the encoded messages in frame, one WebSocket message of
// c's ".batched" subprotocol. The messages are slices of frame, not copies.
// A frame that is empty or malformed gives an error wrapping
// wamp.ErrProtocol.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func SplitBatch(c Codec, frame []byte) ([][]byte, error) {
	if len(frame) == 0 {
		return nil, decodeError(c.Name(), "empty batch")
	}
	if !c.Binary() {
		return splitSeparated(c, frame)
	}
	var msgs [][]byte
	for len(frame) > 0 {
		if len(frame) < 4 {
			return nil, decodeError(c.Name(), "batch: truncated length")
		}
		n := binary.BigEndian.Uint32(frame)
		frame = frame[4:]
		if uint64(n) > uint64(len(frame)) {
			return nil, decodeError(c.Name(), "batch: length %d past the end", n)
		}
		msgs = append(msgs, frame[:n])
		frame = frame[n:]
	}
	return msgs, nil
}

func splitSeparated(c Codec, frame []byte) ([][]byte, error) {
	if frame[len(frame)-1] != jsonBatchSep {
		return nil, decodeError(c.Name(), "batch: missing final separator")
	}
	msgs := bytes.Split(frame[:len(frame)-1], []byte{jsonBatchSep})
	for _, m := range msgs {
		if len(m) == 0 {
			return nil, decodeError(c.Name(), "batch: empty message")
		}
	}
	return msgs, nil
}

// AppendBatch appends msg, one encoded message of c, to dst with the batch
// framing of c. A message must be shorter than 4 GiB.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func AppendBatch(c Codec, dst, msg []byte) []byte {
	if !c.Binary() {
		return append(append(dst, msg...), jsonBatchSep)
	}
	n := uint32(min(uint64(len(msg)), math.MaxUint32))
	return append(binary.BigEndian.AppendUint32(dst, n), msg...)
}
