package integration

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// fidelityArgs and fidelityKwargs are what every receiver must get, in
// every serializer: keys in the order sent (a repeated key's last value at
// the place of its first), integers at the edges of int64 and uint64
// exact, a binary, 1.50 as 1.5, and a MessagePack extension as nil.
var (
	fidelityArgs = wamp.List{int64(1<<53 + 1), int64(math.MaxInt64), uint64(math.MaxUint64), int64(math.MinInt64),
		[]byte{0, 1, 2, 255}, 1.5, wamp.Object{{Key: "zeta", Value: int64(0)}, {Key: "alpha", Value: wamp.Object{{Key: "y", Value: int64(1)}, {Key: "b", Value: int64(2)}}}}, nil}
	fidelityKwargs = wamp.Object{{Key: "k", Value: "last"}, {Key: "a", Value: nil}}
)

// fidelityPayload is the payload (Arguments and ArgumentsKw elements) as
// each sender writes it: JSON and MessagePack by hand, with a key sent
// twice (and, for ext, a MessagePack extension in place of the final nil);
// CBOR and UBJSON as our encoder writes the values.
func fidelityPayload(t *testing.T, c codec.Codec, ext bool) []byte {
	switch c {
	case codec.JSON:
		return []byte(`[9007199254740993, 9223372036854775807,18446744073709551615,-9223372036854775808,"\u0000AAEC/w==",1.50,` +
			`{"zeta":0,"alpha":{"y":1,"b":2}},null],{"k":"first","a":null,"k":"last"}`)
	case codec.Msgpack:
		last := "\xc0"
		if ext {
			last = "\xd4\x00\x00"
		}
		return []byte("\x98\xcf\x00\x20\x00\x00\x00\x00\x00\x01\xcf\x7f\xff\xff\xff\xff\xff\xff\xff\xcf\xff\xff\xff\xff\xff\xff\xff\xff" +
			"\xd3\x80\x00\x00\x00\x00\x00\x00\x00\xc4\x04\x00\x01\x02\xff\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00" +
			"\x82\xa4zeta\x00\xa5alpha\x82\xa1y\x01\xa1b\x02" + last +
			"\x83\xa1k\xa5first\xa1a\xc0\xa1k\xa4last")
	}
	head, err := c.Encode(&wamp.Yield{Request: 1, Options: wamp.Dict{}})
	if err != nil {
		t.Fatal(err)
	}
	full, err := c.Encode(&wamp.Yield{Request: 1, Options: wamp.Dict{}, Args: fidelityArgs, Kwargs: fidelityKwargs})
	if err != nil {
		t.Fatal(err)
	}
	if c == codec.UBJSON {
		return full[len(head)-1 : len(full)-1] // both end with ']'
	}
	return full[len(head):]
}

// withPayload returns the message m (no payload) with the payload bytes p
// (two elements) appended, decoded by c as a receiver would: its payload
// raw where c keeps payloads raw, so that sending it writes p unchanged.
func withPayload(t *testing.T, c codec.Codec, m wamp.Message, p []byte) wamp.Message {
	t.Helper()
	b, err := c.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	switch c {
	case codec.JSON:
		b = append(append(append(b[:len(b)-1:len(b)-1], ','), p...), ']')
	case codec.UBJSON:
		b = append(append(b[:len(b)-1:len(b)-1], p...), ']')
	default: // one-byte array heads: MessagePack 0x9n, CBOR 0x8n
		b = append(append([]byte{b[0] + 2}, b[1:]...), p...)
	}
	out, err := c.Decode(b)
	if err != nil {
		t.Fatalf("%s: %q: %v", c.Name(), b, err)
	}
	return out
}

// fidelityPeer is a raw WAMP session: messages as the transport gives them.
type fidelityPeer struct {
	p   wamp.Peer
	c   codec.Codec
	in  chan wamp.Message
	req wamp.ID
}

func joinFidelity(t *testing.T, addr string, c codec.Codec) *fidelityPeer {
	return joinFidelityRaw(t, addr, c, true)
}

// joinFidelityRaw joins with c; raw sets the dialer's RawPayloads.
func joinFidelityRaw(t *testing.T, addr string, c codec.Codec, raw bool) *fidelityPeer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// RawPayloads: the peer sees the payload bytes as they came on the
	// wire, to check that they passed through the router unchanged.
	p, err := rawsocket.Dial(ctx, "tcp", addr, rawsocket.DialOptions{Serializer: c.Name(), RawPayloads: raw})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	f := &fidelityPeer{p: p, c: c, in: make(chan wamp.Message, 16)}
	go func() {
		defer close(f.in)
		for {
			m, err := p.Recv()
			if err != nil {
				return
			}
			f.in <- m
		}
	}()
	roles := wamp.Dict{"caller": wamp.Dict{}, "callee": wamp.Dict{}, "publisher": wamp.Dict{}, "subscriber": wamp.Dict{}}
	f.send(t, &wamp.Hello{Realm: realm, Details: wamp.Dict{"roles": roles}})
	f.next(t, wamp.TypeWelcome)
	return f
}

func (f *fidelityPeer) send(t *testing.T, m wamp.Message) {
	t.Helper()
	if err := f.p.Send(m); err != nil {
		t.Fatal(err)
	}
}

func (f *fidelityPeer) id() wamp.ID { f.req++; return f.req }

// next returns the next message, which must be of type typ.
func (f *fidelityPeer) next(t *testing.T, typ wamp.MessageType) wamp.Message {
	t.Helper()
	select {
	case m, ok := <-f.in:
		if !ok || m.Type() != typ {
			t.Fatalf("%s: got %#v, want %s", f.c.Name(), m, typ)
		}
		return wamp.Unwrap(m)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no %s within 10s", f.c.Name(), typ)
	}
	return nil
}

// checkPayload checks what a receiver got: the fidelity values, and, from
// a sender of its own serializer whose payload was raw, the very bytes.
func checkPayload(t *testing.T, what string, got, sent wamp.Message, rc codec.Codec) {
	t.Helper()
	args, kwargs, err := wamp.Values(got)
	if err != nil || !reflect.DeepEqual(args, fidelityArgs) || !reflect.DeepEqual(kwargs, fidelityKwargs) {
		t.Errorf("%s: got %#v %#v, %v\nwant %#v %#v", what, args, kwargs, err, fidelityArgs, fidelityKwargs)
	}
	in, out := wamp.PayloadOf(sent).Raw, wamp.PayloadOf(got).Raw
	if in != nil && in.Serializer() == rc.Serializer() && (out == nil || !bytes.Equal(out.Bytes(), in.Bytes())) {
		t.Errorf("%s: payload bytes not passed through: sent %q, received %+v", what, in.Bytes(), out)
	}
}

// TestPayloadFidelity sends the same payload from every serializer to
// every serializer through the router: call arguments to the callee, the
// yield to the caller, a call error, an event, a retained event.
func TestPayloadFidelity(t *testing.T) {
	codecs := []codec.Codec{codec.JSON, codec.Msgpack, codec.CBOR, codec.UBJSON}
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: realm}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	addr := serveRawsocket(t, r.Gate(authenticators...), "tcp")
	for _, sc := range codecs {
		for _, rc := range codecs {
			t.Run(sc.Name()+"-to-"+rc.Name(), func(t *testing.T) {
				s, rcv := joinFidelity(t, addr, sc), joinFidelity(t, addr, rc)
				p := fidelityPayload(t, sc, false)
				proc := wamp.URI("com.fidelity." + sc.Name() + "." + rc.Name())

				// RPC: CALL to INVOCATION, YIELD to RESULT, ERROR to ERROR.
				rcv.send(t, &wamp.Register{Request: rcv.id(), Options: wamp.Dict{}, Procedure: proc})
				rcv.next(t, wamp.TypeRegistered)
				call := withPayload(t, sc, &wamp.Call{Request: s.id(), Options: wamp.Dict{}, Procedure: proc}, p)
				s.send(t, call)
				inv := rcv.next(t, wamp.TypeInvocation).(*wamp.Invocation)
				checkPayload(t, "invocation", inv, call, rc)
				yield := withPayload(t, rc, &wamp.Yield{Request: inv.Request, Options: wamp.Dict{}}, fidelityPayload(t, rc, false))
				rcv.send(t, yield)
				checkPayload(t, "result", s.next(t, wamp.TypeResult), yield, sc)

				call = withPayload(t, sc, &wamp.Call{Request: s.id(), Options: wamp.Dict{}, Procedure: proc}, p)
				s.send(t, call)
				inv = rcv.next(t, wamp.TypeInvocation).(*wamp.Invocation)
				fail := withPayload(t, rc, &wamp.Error{RequestType: wamp.TypeInvocation, Request: inv.Request, Details: wamp.Dict{}, Error: "com.fidelity.oops"},
					fidelityPayload(t, rc, false))
				rcv.send(t, fail)
				checkPayload(t, "call error", s.next(t, wamp.TypeError), fail, sc)

				// PubSub: an event, then a retained one (with a MessagePack
				// extension: not raw, normalised to nil).
				topic := wamp.URI("com.fidelity.topic." + sc.Name() + "." + rc.Name())
				rcv.send(t, &wamp.Subscribe{Request: rcv.id(), Options: wamp.Dict{}, Topic: topic})
				rcv.next(t, wamp.TypeSubscribed)
				pub := withPayload(t, sc, &wamp.Publish{Request: s.id(), Options: wamp.Dict{"acknowledge": true}, Topic: topic}, p)
				s.send(t, pub)
				s.next(t, wamp.TypePublished)
				checkPayload(t, "event", rcv.next(t, wamp.TypeEvent), pub, rc)

				kept := topic + ".retained"
				pub = withPayload(t, sc, &wamp.Publish{Request: s.id(), Options: wamp.Dict{"acknowledge": true, "retain": true}, Topic: kept},
					fidelityPayload(t, sc, true))
				s.send(t, pub)
				s.next(t, wamp.TypePublished)
				rcv.send(t, &wamp.Subscribe{Request: rcv.id(), Options: wamp.Dict{"get_retained": true}, Topic: kept})
				rcv.next(t, wamp.TypeSubscribed)
				checkPayload(t, "retained event", rcv.next(t, wamp.TypeEvent), pub, rc)
			})
		}
	}
}

// TestClientDecodesPayloads: a client peer (no RawPayloads) gets a
// forwarded payload as values, in order, not raw.
func TestClientDecodesPayloads(t *testing.T) {
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: realm}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	addr := serveRawsocket(t, r.Gate(authenticators...), "tcp")
	for _, c := range []codec.Codec{codec.JSON, codec.Msgpack, codec.CBOR} {
		t.Run(c.Name(), func(t *testing.T) {
			pub, sub := joinFidelityRaw(t, addr, c, true), joinFidelityRaw(t, addr, c, false)
			topic := wamp.URI("com.fidelity.client." + c.Name())
			sub.send(t, &wamp.Subscribe{Request: sub.id(), Options: wamp.Dict{}, Topic: topic})
			sub.next(t, wamp.TypeSubscribed)
			m := withPayload(t, c, &wamp.Publish{Request: pub.id(), Options: wamp.Dict{"acknowledge": true}, Topic: topic}, fidelityPayload(t, c, false))
			pub.send(t, m)
			pub.next(t, wamp.TypePublished)
			ev := sub.next(t, wamp.TypeEvent).(*wamp.Event)
			if ev.Raw != nil {
				t.Fatal("a client peer kept the payload raw")
			}
			if !reflect.DeepEqual(ev.Args, fidelityArgs) || !reflect.DeepEqual(ev.Kwargs, fidelityKwargs) {
				t.Fatalf("payload %v %v, want %v %v", ev.Args, ev.Kwargs, fidelityArgs, fidelityKwargs)
			}
		})
	}
}
