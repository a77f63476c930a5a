package loginguard

import (
	"fmt"
	"testing"
	"time"
)

func TestThrottleDelay(t *testing.T) {
	ms := time.Millisecond
	want := []time.Duration{0, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 5000 * ms, 5000 * ms}
	for n, d := range want {
		if got := Delay(n); got != d {
			t.Errorf("Delay(%d) = %v, want %v", n, got, d)
		}
	}
	if maxFails != 6 {
		t.Errorf("maxFails = %d, want 6", maxFails)
	}
}

// TestThrottleAddress: after each failure from an address, its next
// attempt waits Delay(failures); attempts waiting at once are
// spaced, and one that would wait past Max is refused; failures
// are forgotten one per throttleDecay of quiet.
func TestThrottleAddress(t *testing.T) {
	var th Throttle
	a := Key{Addr: "192.0.2.1"}
	t0 := time.Unix(1_000_000, 0)
	wantAdmit(t, &th, a, t0, 0)
	now := t0
	for n := 1; n <= 8; n++ {
		th.Failed(a, now)
		now = now.Add(time.Millisecond)
		wantAdmit(t, &th, a, now, Delay(n)-time.Millisecond)
		now = now.Add(Delay(n))
	}
	wantAdmit(t, &th, Key{Addr: "192.0.2.2"}, now, 0)

	// Quiet: one failure forgotten per throttleDecay.
	last := now
	th.Failed(a, last)
	e := th.addrs.m[a.Addr]
	for k := range maxFails + 1 {
		if got, want := e.failsAt(last.Add(time.Duration(k)*throttleDecay)), max(maxFails-k, 0); got != want {
			t.Errorf("failures after %d quiet periods = %d, want %d", k, got, want)
		}
	}
	wantAdmit(t, &th, a, last.Add(time.Duration(maxFails)*throttleDecay), 0)
	if len(th.addrs.m) != 0 || len(th.addrs.evictable) != 0 {
		t.Errorf("forgotten entry still held: %d, %d", len(th.addrs.m), len(th.addrs.evictable))
	}
}

// TestThrottleParallel: attempts from one address that arrive together
// after a failure are spaced Delay apart; those that would wait
// more than Max are refused at once.
func TestThrottleParallel(t *testing.T) {
	var th Throttle
	a := Key{Addr: "192.0.2.1"}
	t0 := time.Unix(1_000_000, 0)
	th.Failed(a, t0)
	admitted := 0
	for k := 1; ; k++ {
		wait, ok := th.Admit(a, t0)
		if !ok {
			break
		}
		if wait != time.Duration(k)*throttleInitial {
			t.Fatalf("attempt %d waits %v, want %v", k, wait, time.Duration(k)*throttleInitial)
		}
		admitted++
	}
	if want := int(Max / throttleInitial); admitted != want {
		t.Errorf("%d attempts admitted at once, want %d", admitted, want)
	}
	wantAdmit(t, &th, a, t0.Add(Max), throttleInitial)
}

// TestThrottleAuthID: failures for an authid delay its next attempt from
// any address, never refuse it, and are cleared by a success; a success
// leaves the address's failures alone.
func TestThrottleAuthID(t *testing.T) {
	var th Throttle
	t0 := time.Unix(1_000_000, 0)
	for i := range 3 {
		th.Failed(Key{Addr: fmt.Sprintf("192.0.2.%d", i+1), AuthID: "alice"}, t0)
	}
	fresh := Key{Addr: "198.51.100.1", AuthID: "alice"}
	for range 100 {
		wantAdmit(t, &th, fresh, t0, Delay(3))
	}
	wantAdmit(t, &th, Key{Addr: "198.51.100.1", AuthID: "bob"}, t0, 0)
	wantAdmit(t, &th, Key{AuthID: "alice"}, t0.Add(300*time.Millisecond), Delay(3)-300*time.Millisecond)

	th.Succeeded(Key{Addr: "192.0.2.1", AuthID: "alice"})
	wantAdmit(t, &th, fresh, t0.Add(time.Second), 0)
	wantAdmit(t, &th, Key{Addr: "192.0.2.1"}, t0, Delay(1))
}

// TestThrottleMemoryBounded: a flood of failures from distinct addresses
// and authids keeps each table at throttleEntries, dropping the oldest.
func TestThrottleMemoryBounded(t *testing.T) {
	var th Throttle
	t0 := time.Unix(1_000_000, 0)
	for i := range 3 * throttleEntries {
		k := Key{Addr: fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&255, i&255), AuthID: fmt.Sprint("user", i)}
		th.Failed(k, t0.Add(time.Duration(i)*time.Microsecond))
	}
	for name, tb := range map[string]*throttleTable{"addresses": &th.addrs, "authids": &th.authids} {
		if len(tb.m) != throttleEntries || len(tb.evictable) != throttleEntries {
			t.Errorf("%s: %d entries, %d evictable, want %d", name, len(tb.m), len(tb.evictable), throttleEntries)
		}
	}
	last := 3*throttleEntries - 1
	if th.addrs.m[fmt.Sprintf("10.%d.%d.%d", last>>16, last>>8&255, last&255)] == nil || th.addrs.m["10.0.0.0"] != nil {
		t.Error("the newest failure was dropped, or the oldest kept")
	}
}

// wantAdmit checks that an attempt is admitted at now with a wait of want,
// and ends it (Done) at once, without an outcome.
func wantAdmit(t *testing.T, th *Throttle, k Key, now time.Time, want time.Duration) {
	t.Helper()
	wait, ok := th.Admit(k, now)
	if !ok || wait != want {
		t.Fatalf("admit(%+v) = %v, %v; want %v, true", k, wait, ok, want)
	}
	th.Done(k, now)
}

// TestThrottlePending: an address with no failure yet may have
// throttlePending attempts in progress at once (failures count only once
// answered, so a burst that holds back its answers would otherwise all get
// a CHALLENGE); one more is refused, and an attempt that ends makes room.
func TestThrottlePending(t *testing.T) {
	var th Throttle
	a := Key{Addr: "192.0.2.1", AuthID: "alice"}
	t0 := time.Unix(1_000_000, 0)
	for k := range throttlePending {
		if wait, ok := th.Admit(a, t0); !ok || wait != 0 {
			t.Fatalf("attempt %d: admit = %v, %v; want 0, true", k+1, wait, ok)
		}
	}
	if _, ok := th.Admit(a, t0); ok {
		t.Fatalf("attempt %d admitted with %d pending", throttlePending+1, throttlePending)
	}
	wantAdmit(t, &th, Key{Addr: "192.0.2.2", AuthID: "alice"}, t0, 0)
	th.Done(a, t0)
	wantAdmit(t, &th, a, t0, 0)
	for range throttlePending - 1 {
		th.Done(a, t0)
	}
	if len(th.addrs.m) != 0 || len(th.addrs.evictable) != 0 {
		t.Errorf("an address with nothing pending is still held: %d, %d", len(th.addrs.m), len(th.addrs.evictable))
	}
}

func TestAddrKey(t *testing.T) {
	tests := map[string]string{
		"192.0.2.1:4000":          "192.0.2.1",
		"[::ffff:192.0.2.1]:4000": "192.0.2.1",
		"[2001:db8:1:2:3::4]:80":  "2001:db8:1::/56",
		"[2001:db8:1:2:ff::9]:81": "2001:db8:1::/56",
		"[2001:db8:1:ff::1]:82":   "2001:db8:1::/56",
		"[2001:db8:1:100::1]:83":  "2001:db8:1:100::/56",
		"[fe80::1%eth0]:80":       "fe80::/56",
		"/run/junction.sock":      "",
		"@":                       "",
		"host.example:80":         "",
	}
	for in, want := range tests {
		if got := AddrKey(in); got != want {
			t.Errorf("AddrKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestThrottleEviction: in a full table, an entry with nothing left to
// remember goes first, else the one that would be forgotten soonest, not
// the one whose last failure is oldest (a guesser's six failures would
// otherwise be forgotten for a flood of single failures).
func TestThrottleEviction(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	tables := map[string]struct {
		key   func(i int) Key
		table func(th *Throttle) *throttleTable
	}{
		"addresses": {func(i int) Key { return Key{Addr: fmt.Sprint("addr", i)} }, func(th *Throttle) *throttleTable { return &th.addrs }},
		"authids":   {func(i int) Key { return Key{AuthID: fmt.Sprint("id", i)} }, func(th *Throttle) *throttleTable { return &th.authids }},
	}
	for name, tb := range tables {
		for _, later := range []time.Duration{time.Minute, 2 * time.Second} {
			t.Run(fmt.Sprint(name, " ", later, " later"), func(t *testing.T) {
				var th Throttle
				guesser := tb.key(-1)
				for range maxFails {
					th.Failed(guesser, t0) // remembered for 3 minutes
				}
				for i := range throttleEntries - 1 {
					th.Failed(tb.key(i), t0.Add(time.Second)) // for 30 s
				}
				now := t0.Add(later)
				th.Failed(tb.key(throttleEntries), now)
				table := tb.table(&th)
				want := maxFails - int(later/throttleDecay)
				if e := table.m[keyOf(guesser)]; e == nil || e.failsAt(now) != want {
					t.Fatalf("the guesser's entry %+v was dropped or changed, want %d failures", e, want)
				}
				if n := len(table.m); n > throttleEntries || len(table.evictable) != n {
					t.Errorf("%d entries, %d evictable", n, len(table.evictable))
				}
			})
		}
	}
}

// keyOf is k's key in its table, for a test that uses only one of them.
func keyOf(k Key) string { return k.Addr + k.AuthID }

// TestThrottleKeepsPending: an address with attempts pending is never
// dropped from the table; when every entry has some, an attempt from a
// new address is refused, until one of them is done.
func TestThrottleKeepsPending(t *testing.T) {
	var th Throttle
	t0 := time.Unix(1_000_000, 0)
	addr := func(i int) Key { return Key{Addr: fmt.Sprint("addr", i)} }
	for i := range throttleEntries {
		if _, ok := th.Admit(addr(i), t0); !ok {
			t.Fatalf("attempt %d refused", i)
		}
	}
	th.Failed(addr(1), t0)
	fresh := Key{Addr: "198.51.100.1", AuthID: "alice"}
	if _, ok := th.Admit(fresh, t0); ok {
		t.Fatal("a new address admitted into a table full of pending attempts")
	}
	if len(th.addrs.m) != throttleEntries || th.addrs.m[addr(0).Addr] == nil {
		t.Fatalf("%d addresses, the first one %v", len(th.addrs.m), th.addrs.m[addr(0).Addr])
	}
	wantAdmit(t, &th, Key{AuthID: "alice"}, t0, 0) // no address: not refused
	th.Done(addr(1), t0)                           // failed: kept, now evictable
	wantAdmit(t, &th, fresh, t0, 0)
	if e := th.addrs.m[addr(1).Addr]; e != nil {
		t.Errorf("the failed address %+v was kept, want it evicted for the new one", e)
	}
	th.Done(addr(0), t0)
	wantAdmit(t, &th, fresh, t0, 0)
}
