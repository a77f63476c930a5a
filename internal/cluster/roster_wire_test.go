package cluster

import (
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

func rosterSamples() []*rosterEntry {
	return []*rosterEntry{
		{realm: "realm1", session: 1},
		{realm: "r", session: wamp.MaxID, authID: "joe", authRole: "user",
			subs: []router.RosterItem{{ID: 7, URI: "com.t", Match: "exact"}, {ID: wamp.MaxID, URI: "com.", Match: "prefix"}},
			regs: []router.RosterItem{{ID: 9, URI: "com..p", Match: "wildcard"}}},
	}
}

func TestRosterWire(t *testing.T) {
	for _, e := range rosterSamples() {
		b := appendRoster(nil, e)
		got, err := decodeRoster(b)
		if err != nil || !reflect.DeepEqual(got, e) {
			t.Fatalf("round trip: %+v, %v; want %+v", got, err, e)
		}
		for n := range len(b) {
			if _, err := decodeRoster(b[:n]); err == nil {
				t.Errorf("%+v cut to %d bytes decodes", e, n)
			}
		}
		if _, err := decodeRoster(append(b, 0)); err == nil {
			t.Errorf("%+v with a trailing byte decodes", e)
		}
	}
}

// FuzzRosterWire: any bytes decode to a roster entry or an error, never a
// panic; an entry decoded encodes to the same bytes.
func FuzzRosterWire(f *testing.F) {
	for _, e := range rosterSamples() {
		f.Add(appendRoster(nil, e))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeRoster(b)
		if err != nil {
			return
		}
		if again := appendRoster(nil, e); string(again) != string(b) {
			t.Fatalf("%x decodes to %+v, which encodes to %x", b, e, again)
		}
	})
}

func reapLockSamples() []reapLock {
	return []reapLock{
		{reaper: Member{"node-1", 1}, member: Member{"node-2", 1<<64 - 1}, publish: true},
		{reaper: Member{"n", 0}, member: Member{"", 5}},
	}
}

func TestReapLockWire(t *testing.T) {
	for _, l := range reapLockSamples() {
		b := appendReapLock(nil, l)
		if got, err := decodeReapLock(b); err != nil || got != l {
			t.Fatalf("round trip: %+v, %v; want %+v", got, err, l)
		}
		for n := range len(b) {
			if _, err := decodeReapLock(b[:n]); err == nil {
				t.Errorf("%+v cut to %d bytes decodes", l, n)
			}
		}
	}
	bad := appendReapLock(nil, reapLockSamples()[0])
	bad[1] = 2
	if _, err := decodeReapLock(bad); err == nil {
		t.Error("a publish flag of 2 decodes")
	}
}

// FuzzReapLockWire: any bytes decode to a lock or an error, never a
// panic; a lock decoded encodes to the same bytes.
func FuzzReapLockWire(f *testing.F) {
	for _, l := range reapLockSamples() {
		f.Add(appendReapLock(nil, l))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := decodeReapLock(b)
		if err != nil {
			return
		}
		if again := appendReapLock(nil, l); string(again) != string(b) {
			t.Fatalf("%x decodes to %+v, which encodes to %x", b, l, again)
		}
	})
}
