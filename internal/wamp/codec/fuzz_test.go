package codec

import "testing"

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
		m, err := c.Decode(b)
		if err != nil {
			return
		}
		again, err := c.Encode(m)
		if err != nil {
			t.Fatalf("re-encode of %#v: %v", m, err)
		}
		m2, err := c.Decode(again)
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
