package wamp_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

func TestPayloadSize(t *testing.T) {
	const iface, num, str, slice, mp, group, field = 16, 8, 16, 24, 48, 8 + 8*32, 32
	tests := []struct {
		name   string
		args   wamp.List
		kwargs wamp.Object
		opts   wamp.Dict
		want   int
	}{
		{"topic only", nil, nil, nil, 5},
		{"string", wamp.List{"abc"}, nil, nil, 5 + iface + str + 3},
		{"binary and number", wamp.List{[]byte{1, 2}, 42}, nil, nil, 5 + iface + slice + 2 + iface + num},
		{"empty values count", wamp.List{"", "", nil, false}, nil, nil, 5 + 4*iface},
		{"empty dictionary", wamp.List{wamp.Dict{}}, nil, nil, 5 + iface + mp},
		{"nested", wamp.List{wamp.List{"ab", wamp.Dict{"k": "v"}}}, nil, nil,
			5 + iface + slice + (iface + str + 2) + (iface + mp + group + 1 + str + 1)},
		{"empty object", wamp.List{wamp.Object{}}, nil, nil, 5 + iface + slice},
		{"nested object", wamp.List{wamp.Object{{Key: "k", Value: wamp.Object{{Key: "ab", Value: "v"}}}}}, nil, nil,
			5 + iface + slice + (field + 1) + slice + (field + 2 + str + 1)},
		{"kwargs and options", nil, wamp.Object{{Key: "key", Value: true}}, wamp.Dict{"retain": true}, 5 + (field + 3) + (mp + group + 6)},
		{"nine keys take two groups", wamp.List{wamp.Dict{"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1, "h": 1, "i": 1}}, nil, nil, 5 + iface + mp + 2*group + 9 + 9*num},
	}
	for _, tt := range tests {
		if got := wamp.PayloadSize("com.t", wamp.Payload{Args: tt.args, Kwargs: tt.kwargs}, tt.opts); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestPayloadSizeMatchesHeap holds the estimate to what decoding really
// costs: for payloads dense in small values (the cheapest on the wire for
// what they cost in memory) and for plain ones, decoded by every codec,
// and as a plain-JSON request body (the HTTP bridge's Caller and
// Publisher), the heap that the decoded value holds is within a factor of
// the estimate (0.95 to 1.17 here without the race detector).
func TestPayloadSizeMatchesHeap(t *testing.T) {
	const n = 20000
	fill := func(v any) wamp.List {
		l := make(wamp.List, n)
		for i := range l {
			l[i] = v
		}
		return l
	}
	payloads := map[string]wamp.List{
		"empty dictionaries": fill(wamp.Dict{}),
		"small dictionaries": fill(wamp.Dict{"a": 1, "bb": "x"}),
		"empty lists":        fill(wamp.List{}),
		"empty strings":      fill(""),
		"numbers":            fill(1.5),
		"short strings":      fill("abcdefgh"),
		"binaries":           fill([]byte("abcdefgh")),
		"one big string":     {strings.Repeat("x", 1<<20)},
	}
	for _, c := range []codec.Codec{codec.JSON, codec.Msgpack, codec.CBOR} {
		for name, args := range payloads {
			b := must(c.Encode(&wamp.Publish{Request: 1, Options: wamp.Dict{}, Topic: "com.t", Args: wamp.List{args}}))
			// decoded values (JSON and MessagePack keep the payload raw,
			// and then count its bytes: TestRawPayloadSize)
			held := heapHeldBy(func() any { return must(wamp.Decoded(must(c.Decode(b)))) })
			p := must(wamp.Decoded(must(c.Decode(b)))).(*wamp.Publish)
			checkEstimate(t, c.Name()+", "+name, held, wamp.PayloadSize(p.Topic, wamp.PayloadOf(p), p.Options))
		}
	}
	for name, args := range payloads {
		if name == "binaries" {
			continue // plain JSON has none
		}
		b := must(codec.AppendPlainJSON(nil, wamp.Dict{"procedure": "com.t", "args": wamp.List{args}}))
		held := heapHeldBy(func() any { return must(codec.DecodePlainJSON(b)) })
		obj := must(codec.DecodePlainJSON(b)).(wamp.Object)
		checkEstimate(t, "plain JSON body, "+name, held, wamp.ObjectSize(obj))
	}
}

// checkEstimate fails when the heap held is not within a factor of the
// estimate.
func checkEstimate(t *testing.T, name string, held int64, est int) {
	t.Helper()
	ratio := float64(held) / float64(est)
	t.Logf("%s: held %d, estimate %d, ratio %.2f", name, held, est, ratio)
	if ratio < 0.75 || ratio > 1.5 { // the race detector pads 8-byte boxes: 1.35 under -race, 1.0 without
		t.Errorf("%s: decoded value holds %d bytes, estimate %d (ratio %.2f)", name, held, est, ratio)
	}
}

// heapHeldBy is the growth of the live heap while f's result is kept.
func heapHeldBy(f func() any) int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	v := f()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(v)
	return int64(ms.HeapAlloc) - int64(before)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
