package cluster

import (
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

func lostSamples() []*lostSession {
	w := willSamples()[1]
	return []*lostSession{
		{member: Member{Name: "node-1", Epoch: 1}, realm: "realm1", s: router.LostSession{ID: 1}},
		{member: Member{Name: "node-2", Epoch: 0xfedcba9876543210}, realm: w.realm, rostered: true, s: router.LostSession{ID: w.session, AuthID: "joe", AuthRole: "user",
			Subscriptions: []router.RosterItem{{ID: 7, URI: "com.t", Match: "exact", Last: true}, {ID: wamp.MaxID, URI: "com.", Match: "prefix"}},
			Registrations: []router.RosterItem{{ID: 9, URI: "com..p", Match: "wildcard", Last: true}},
			Testaments:    w.ts}},
	}
}

// sameLost compares lost sessions as they travel (their keys stay
// behind), the testaments by their encoding.
func sameLost(got, want *lostSession) bool {
	g, w := *got, *want
	g.keys, w.keys = nil, nil
	gt, wt := g.s.Testaments, w.s.Testaments
	g.s.Testaments, w.s.Testaments = nil, nil
	if !reflect.DeepEqual(g, w) || len(gt) != len(wt) {
		return false
	}
	for i := range gt {
		if gt[i].Topic != wt[i].Topic || len(gt[i].Options) != len(wt[i].Options) || !samePayload(gt[i].Payload, wt[i].Payload) {
			return false
		}
	}
	return true
}

func TestLostWire(t *testing.T) {
	for _, ls := range lostSamples() {
		b, err := appendLost(nil, ls)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := decodeLost(b); err != nil || !sameLost(got, ls) {
			t.Fatalf("round trip: %+v, %v; want %+v", got, err, ls)
		}
		for n := range len(b) {
			if _, err := decodeLost(b[:n]); err == nil {
				t.Errorf("%+v cut to %d bytes decodes", ls, n)
			}
		}
	}
	bad, _ := appendLost(nil, lostSamples()[0])
	bad[1] = 2
	if _, err := decodeLost(bad); err == nil {
		t.Error("a rostered flag of 2 decodes")
	}
}

// FuzzLostWire: any bytes decode to a lost session or an error, never a
// panic; one decoded encodes and decodes again.
func FuzzLostWire(f *testing.F) {
	fuzzRoundTrip(f, lostSamples(), appendLost, decodeLost, sameLost)
}
