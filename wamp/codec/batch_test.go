package codec

import (
	"errors"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func TestBatchRoundTrip(t *testing.T) {
	for _, c := range allCodecs {
		var frame []byte
		msgs := allMessages()
		for _, m := range msgs {
			b, err := c.Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			frame = AppendBatch(c, frame, b)
		}
		parts, err := SplitBatch(c, frame)
		if err != nil || len(parts) != len(msgs) {
			t.Fatalf("%s: SplitBatch: %d parts, %v", c.Name(), len(parts), err)
		}
		for i, p := range parts {
			got, err := decodeValues(c, p)
			if err != nil || !equal(got, msgs[i]) {
				t.Errorf("%s: part %d: %#v, %v", c.Name(), i, got, err)
			}
		}
	}
}

func TestBatchFraming(t *testing.T) {
	if got := AppendBatch(JSON, []byte("x"), []byte("[1]")); string(got) != "x[1]\x18" {
		t.Errorf("JSON framing: %q", got)
	}
	for _, c := range []Codec{Msgpack, CBOR, UBJSON} {
		if got := AppendBatch(c, nil, []byte("abc")); string(got) != "\x00\x00\x00\x03abc" {
			t.Errorf("%s framing: %q", c.Name(), got)
		}
	}
}

func TestSplitBatchErrors(t *testing.T) {
	tests := []struct {
		c     Codec
		name  string
		frame string
	}{
		{JSON, "empty", ""},
		{JSON, "no final separator", "[1]\x18[2]"},
		{JSON, "empty message", "[1]\x18\x18"},
		{JSON, "only separator", "\x18"},
		{Msgpack, "empty", ""},
		{Msgpack, "length past the end", "\x00\x00\x00\x05abc"},
		{CBOR, "truncated length", "\x00\x00\x00\x01a\x00\x00"},
		{UBJSON, "huge length", "\xff\xff\xff\xffabc"},
	}
	for _, tt := range tests {
		if _, err := SplitBatch(tt.c, []byte(tt.frame)); !errors.Is(err, wamp.ErrProtocol) {
			t.Errorf("%s: %s: err = %v", tt.c.Name(), tt.name, err)
		}
	}
}
