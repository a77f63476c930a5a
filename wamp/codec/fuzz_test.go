package codec

import (
	"bytes"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// fuzzCodec checks that Decode never panics and that what decodes encodes
// and decodes again to an equal message.
func fuzzCodec(f *testing.F, c Codec, seeds ...string) {
	for _, m := range allMessages() {
		b, err := c.Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeValues(c, b)
		if err != nil {
			return
		}
		again, err := c.Encode(m)
		if err != nil {
			t.Fatalf("re-encode of %#v: %v", m, err)
		}
		m2, err := decodeValues(c, again)
		if err != nil {
			t.Fatalf("decode of re-encoded %q: %v", again, err)
		}
		if !equal(m, m2) {
			t.Fatalf("round trip changed the message:\n%#v\n%#v", m, m2)
		}
	})
}

func FuzzJSON(f *testing.F) {
	fuzzCodec(f, JSON, `[36,1,2,{},["\u0000AAEC/w==",1e5,-0,"\ud83d\ude00"]]`, `[1,"r",{"a":[{"b":null}]}]`)
}

func FuzzMsgpack(f *testing.F) {
	fuzzCodec(f, Msgpack, "\x95\x24\x01\x02\x81\xaaexclude_me\xd4\x00\x00\x91\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00")
}

func FuzzCBOR(f *testing.F) {
	fuzzCodec(f, CBOR, "\x85\x18\x24\x01\x02\xa1\x61k\xf7\x82\xc2\x41\x01\xd9\x04\xd2\x61x", "\x9f\x18\x24\x01\x02\xbf\xff\x9f\xff\xff")
}

func FuzzUBJSON(f *testing.F) {
	fuzzCodec(f, UBJSON, "[#U\x05U$U\x01U\x02{$Z#U\x01U\x01a[$i#U\x02\xff\x05", "[U$U\x01U\x02{}[[$U#U\x02\x00\x01HU\x031.5]]")
}

// fuzzRaw checks a codec that keeps payloads raw: its validation accepts
// exactly what a full decode accepts, a raw payload decodes to the values
// of a full decode (order included), and re-encoding in the same format
// writes the payload's bytes unchanged.
func fuzzRaw(f *testing.F, c Codec, seeds ...string) {
	for _, m := range allMessages() {
		b, err := c.Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	fm := c.(*format)
	f.Fuzz(func(t *testing.T, b []byte) {
		raw, rawErr := c.Decode(b)
		full, fullErr := fm.decodeMessage(b)
		if (rawErr == nil) != (fullErr == nil) {
			t.Fatalf("%q: raw decode: %v, full decode: %v", b, rawErr, fullErr)
		}
		if rawErr != nil {
			return
		}
		got, err := wamp.Decoded(raw)
		if err != nil || !equalOrdered(got, full) {
			t.Fatalf("%q: raw payload decodes to\n%#v, %v\nfull decode\n%#v", b, got, err, full)
		}
		p := wamp.PayloadOf(raw)
		if p.Raw == nil || p.Raw.IsPassthru() { // a passthru payload is decoded bytes
			return
		}
		again, err := c.Encode(raw)
		if err != nil || !bytes.Contains(again, p.Raw.Bytes()) {
			t.Fatalf("%q: re-encoded as %q (%v), without the payload %q", b, again, err, p.Raw.Bytes())
		}
	})
}

func FuzzRawJSON(f *testing.F) {
	fuzzRaw(f, JSON, `[36,1,2,{},["\u0000AAEC/w==",1e5,-0,1.50,"\ud83d\ude00"] , {"b":1,"a":{"x":[]},"b":2}]`,
		`[48,1,{},"p",[1e400]]`, `[48,1,{},"p",["\u0000!"]]`, `[48,1,{},"p",{}]`, `[48,1,{},"p",[],[]]`, `[48,1,{},"p",[],{},1]`,
		`[16,1,{"enc_algo":"mqtt"},"t","\u0000AQI="]`, `[16,1,{},"t","\u0000AQI=",{}]`, `[16,1,{},"t","text"]`)
}

func FuzzRawMsgpack(f *testing.F) {
	fuzzRaw(f, Msgpack, "\x95\x24\x01\x02\x80\x91\xd4\x00\x00", "\x96\x24\x01\x02\x80\x90\x82\xa1b\x01\xa1b\x02",
		"\x95\x30\x01\x80\xa1p\x91\xc4\x02\x00\x01", "\x95\x30\x01\x80\xa1p\x91\xa1\xff")
}

func FuzzRawCBOR(f *testing.F) {
	fuzzRaw(f, CBOR, "\x86\x18\x24\x01\x02\xa0\x81\xc1\x01\xa1\x61k\xf7", "\x86\x18\x24\x01\x02\xa0\x80\xa2\x61b\x01\x61a\x02",
		"\x85\x18\x30\x01\xa0\x61p\x81\xfb\x3f\xf8\x00\x00\x00\x00\x00\x00", "\x85\x18\x30\x01\xa0\x61p\x9f\xff")
}

// FuzzSplitBatch checks that SplitBatch never panics and that its parts
// frame back into the same batch.
func FuzzSplitBatch(f *testing.F) {
	f.Add(false, []byte("[1]\x18[2]\x18"))
	f.Add(true, []byte("\x00\x00\x00\x01a\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, binary bool, frame []byte) {
		c := JSON
		if binary {
			c = Msgpack
		}
		parts, err := SplitBatch(c, frame)
		if err != nil {
			return
		}
		var again []byte
		for _, p := range parts {
			again = AppendBatch(c, again, p)
		}
		if string(again) != string(frame) {
			t.Fatalf("reframed %q as %q", frame, again)
		}
	})
}
