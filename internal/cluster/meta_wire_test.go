package cluster

import (
	"encoding/binary"
	"reflect"
	"slices"
	"testing"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

func querySamples() []query {
	from := Member{Name: "node-1", Epoch: 7}
	return []query{
		{from: from, realm: "realm1", MetaQuery: router.MetaQuery{Op: router.SessionCount}},
		{from: from, realm: "realm1", MetaQuery: router.MetaQuery{Op: router.SessionList, AuthRoles: []string{"a", "b"}, HasAuthRoles: true}},
		{from: from, realm: "realm1", MetaQuery: router.MetaQuery{Op: router.SessionList, HasAuthRoles: true}},
		{from: from, realm: "r", MetaQuery: router.MetaQuery{Op: router.SessionGet, ID: wamp.MaxID}},
		{from: from, realm: "r", MetaQuery: router.MetaQuery{Op: router.SessionKill, ID: 3, Reason: "wamp.close.killed", Message: "bye", HasMessage: true}},
		{from: from, realm: "r", MetaQuery: router.MetaQuery{Op: router.SessionKillByAuthRole, Value: "user", Reason: "com.r"}},
		{from: from, realm: "r", MetaQuery: router.MetaQuery{Op: router.SubscriptionLookup, URI: "com..a", Match: uriindex.Wildcard}},
		{from: from, realm: "r", MetaQuery: router.MetaQuery{Op: router.SubscriptionMatch, URI: "com.a.b", Value: "trusted"}},
		{from: from, realm: "r", MetaQuery: router.MetaQuery{Op: router.SubscriptionEvents, ID: 9, Limit: 1000}},
	}
}

func answerSamples() []answer {
	m := Member{Name: "node-2", Epoch: 1 << 60}
	return []answer{
		{member: m},
		{member: m, MetaAnswer: router.MetaAnswer{Count: 12}},
		{member: m, MetaAnswer: router.MetaAnswer{IDs: []wamp.ID{1, wamp.MaxID}}},
		{member: m, MetaAnswer: router.MetaAnswer{Details: wamp.Dict{"session": uint64(5), "authid": "x",
			"transport": wamp.Dict{"type": "websocket"}}}},
		{member: m, MetaAnswer: router.MetaAnswer{Details: wamp.Dict{"id": uint64(9), "uri": "com.h", "match": "prefix",
			"events": wamp.List{wamp.Dict{"time_ns": int64(1), "args": wamp.List{"a"}}}}}},
		{member: m, MetaAnswer: router.MetaAnswer{Details: wamp.Dict{"id": uint64(9), "events": wamp.List{}}}},
		{member: m, tooLarge: 2 << 20},
	}
}

func TestQueryWire(t *testing.T) {
	for _, q := range querySamples() {
		b, err := appendQuery(nil, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeQuery(b)
		if err != nil || !sameQuery(got, q) {
			t.Errorf("round trip: %+v, %v; want %+v", got, err, q)
		}
		if _, err := decodeQuery(b[:len(b)-1]); err == nil {
			t.Errorf("%+v cut short decodes", q)
		}
	}
	for _, q := range []router.MetaQuery{
		{Op: 99}, {Op: router.LastMetaOp + 1}, {Op: router.SubscriptionLookup, Match: uriindex.Wildcard + 1},
		{Op: router.SubscriptionEvents, Limit: -1},
	} {
		if _, err := appendQuery(nil, query{MetaQuery: q}); err == nil {
			t.Errorf("%+v encodes", q)
		}
	}
	// A limit past maxLimit goes as maxLimit; one on the wire past it is
	// refused.
	b, err := appendQuery(nil, query{MetaQuery: router.MetaQuery{Op: router.SubscriptionEvents, Limit: 1 << 40}})
	if q, err2 := decodeQuery(b); err != nil || err2 != nil || q.Limit != maxLimit {
		t.Errorf("a limit of 2^40: %d, %v, %v", q.Limit, err, err2)
	}
	b = binary.AppendUvarint(b[:len(b)-binary.PutUvarint(make([]byte, binary.MaxVarintLen64), maxLimit)], maxLimit+1)
	if _, err := decodeQuery(b); err == nil {
		t.Error("a limit past maxLimit decodes")
	}
}

// TestAnswerEvents: the events of a history's answer come back as a
// list, an empty one too (a history that holds none is not one that is
// not kept).
func TestAnswerEvents(t *testing.T) {
	for _, a := range answerSamples()[4:6] {
		b, err := appendAnswer(nil, a)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeAnswer(b)
		if err != nil {
			t.Fatal(err)
		}
		l, ok := got.Details["events"].(wamp.List)
		if want := a.Details["events"].(wamp.List); !ok || len(l) != len(want) {
			t.Errorf("events %#v, want %d", got.Details["events"], len(want))
		}
	}
}

func TestAnswerWire(t *testing.T) {
	for _, a := range answerSamples() {
		b, err := appendAnswer(nil, a)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeAnswer(b)
		if err != nil || got.member != a.member || got.Count != a.Count || !reflect.DeepEqual(got.IDs, a.IDs) ||
			(a.Details == nil) != (got.Details == nil) || got.Details["authid"] != a.Details["authid"] || got.tooLarge != a.tooLarge {
			t.Errorf("round trip: %+v, %v; want %+v", got, err, a)
		}
		if _, err := decodeAnswer(append(b, 0)); err == nil {
			t.Errorf("%+v with a byte more decodes", a)
		}
	}
}

// sameQuery compares queries, an empty list of roles as none.
func sameQuery(a, b query) bool {
	if len(a.AuthRoles) == 0 && len(b.AuthRoles) == 0 {
		a.AuthRoles, b.AuthRoles = nil, nil
	}
	return reflect.DeepEqual(a, b)
}

// FuzzQueryWire: any bytes decode to a query or an error, never a panic;
// a query decoded encodes and decodes again to itself.
func FuzzQueryWire(f *testing.F) {
	fuzzRoundTrip(f, querySamples(), appendQuery, decodeQuery, sameQuery)
}

// FuzzAnswerWire: any bytes decode to an answer or an error, never a
// panic; an answer decoded encodes and decodes again to itself.
func FuzzAnswerWire(f *testing.F) {
	fuzzRoundTrip(f, answerSamples(), appendAnswer, decodeAnswer, func(a2, a answer) bool {
		// nil and empty lists and maps encode alike
		return a2.member == a.member && a2.Count == a.Count && slices.Equal(a2.IDs, a.IDs) &&
			(len(a2.Details) == 0 && len(a.Details) == 0 || reflect.DeepEqual(a2.Details, a.Details)) && a2.tooLarge == a.tooLarge
	})
}

func willSamples() []will {
	return []will{
		{realm: "realm1", session: 1},
		{realm: "r", session: wamp.MaxID, ts: []router.Testament{
			{Topic: "com.a", Payload: wamp.Payload{Args: wamp.List{"x"}}},
			{Topic: "com.b", Options: wamp.Dict{"retain": true}, Payload: wamp.Payload{Kwargs: wamp.ObjectOf(wamp.Dict{"k": "v"})}},
		}},
	}
}

func TestWillWire(t *testing.T) {
	for _, w := range willSamples() {
		b, err := appendWill(nil, w)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeWill(b)
		if err != nil || got.realm != w.realm || got.session != w.session || len(got.ts) != len(w.ts) {
			t.Fatalf("round trip: %+v, %v; want %+v", got, err, w)
		}
		for i, tm := range got.ts {
			if tm.Topic != w.ts[i].Topic || (tm.Options == nil) != (w.ts[i].Options == nil) || !samePayload(tm.Payload, w.ts[i].Payload) {
				t.Errorf("testament %d: %+v, want %+v", i, tm, w.ts[i])
			}
		}
		if _, err := decodeWill(b[:len(b)-1]); err == nil && len(w.ts) > 0 {
			t.Errorf("%+v cut short decodes", w)
		}
	}
}

// FuzzWillWire: any bytes decode to a will or an error, never a panic;
// a will decoded encodes and decodes again.
func FuzzWillWire(f *testing.F) {
	fuzzRoundTrip(f, willSamples(), appendWill, decodeWill, func(w2, w will) bool {
		return w2.realm == w.realm && w2.session == w.session && len(w2.ts) == len(w.ts)
	})
}

// samePayload compares payloads by their encoding.
func samePayload(a, b wamp.Payload) bool {
	_, x, n, err1 := codec.PayloadBytes(a)
	_, y, m, err2 := codec.PayloadBytes(b)
	return err1 == nil && err2 == nil && n == m && string(x) == string(y)
}
