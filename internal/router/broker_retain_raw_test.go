package router

import (
	"bytes"
	"sync/atomic"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// countingDecoder decodes any raw payload to one value, counting calls.
type countingDecoder struct{ calls atomic.Int32 }

func (d *countingDecoder) DecodePayload(b []byte, n int) (wamp.List, wamp.Object, error) {
	d.calls.Add(1)
	return wamp.List{string(b)}, nil, nil
}

// TestRetainedKeepsBytesOnly: a retained event with a raw payload keeps
// its bytes only, which its size counts against the retained limits
// (F5). What is decoded for a delivery, to the live subscriber as to each
// one that gets it retained later (a subscriber of another serializer
// decodes it; a dense payload decodes to many times its bytes), goes
// with that delivery: every delivery decodes anew.
func TestRetainedKeepsBytesOnly(t *testing.T) {
	r, err := New(Options{Realms: []RealmOptions{{Name: "realm1"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	pub := join(t, r.Gate(), "realm1", nil)
	live := join(t, r.Gate(), "realm1", nil)
	live.subscribe("com.dense", nil)

	dec := &countingDecoder{}
	raw := wamp.NewRaw(wamp.SerializerMsgpack, []byte{0x91, 0x80}, 1, dec) // [{}]
	pub.send(&wamp.Publish{Request: pub.nextReq(), Options: wamp.Dict{"retain": true}, Topic: "com.dense", Raw: raw})
	decodes := func(m wamp.Message, want int32) {
		t.Helper()
		p := wamp.PayloadOf(m)
		if p.Raw == nil || !bytes.Equal(p.Raw.Bytes(), raw.Bytes()) {
			t.Fatalf("EVENT payload %+v, want the raw bytes %x", p, raw.Bytes())
		}
		if _, _, err := p.Values(); err != nil {
			t.Fatal(err)
		}
		if got := dec.calls.Load(); got != want {
			t.Errorf("payload decoded %d times so far, want %d: the retained event kept a delivery's decoding", got, want)
		}
	}
	decodes(expect[*wamp.Event](live), 1)
	for i := range 3 {
		late := join(t, r.Gate(), "realm1", nil)
		late.subscribe("com.dense", wamp.Dict{"get_retained": true})
		decodes(expect[*wamp.Event](late), int32(i+2))
	}
}
