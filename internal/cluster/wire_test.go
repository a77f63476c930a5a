package cluster

import (
	"bytes"
	"slices"
	"testing"
)

func TestToken(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "="},
		{"com", "com"},
		{"a_b-C9", "a_b-C9"},
		{"a.b", "a=2Eb"},
		{"=", "=3D"},
		{"*>", "=2A=3E"},
		{"é", "=C3=A9"},
		{" ", "=20"},
	}
	for _, tt := range tests {
		if got := Token(tt.in); got != tt.want {
			t.Errorf("Token(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzToken(f *testing.F) {
	for _, s := range []string{"", "a.b", "=2E", "com.example", "\x00\xff"} {
		f.Add(s)
	}
	seen := map[string]string{}
	f.Fuzz(func(t *testing.T, s string) {
		tok := Token(s)
		if !validToken(tok) {
			t.Fatalf("Token(%q) = %q: not a subject token", s, tok)
		}
		if prev, ok := seen[tok]; ok && prev != s {
			t.Fatalf("Token(%q) = Token(%q) = %q", s, prev, tok)
		}
		if len(seen) < 10000 {
			seen[tok] = s
		}
	})
}

func validToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plain(s[i]) && s[i] != '=' {
			return false
		}
	}
	return s != ""
}

func FuzzDecodeEnvelope(f *testing.F) {
	f.Add(appendEnvelope(nil, envelope{kind: 3, from: Member{"node-1", 7}, toEpoch: 9, seq: 1, body: []byte("x")}))
	f.Add([]byte{1, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeEnvelope(b)
		if err != nil {
			return
		}
		again := appendEnvelope(nil, e)
		if !bytes.Equal(again, b) {
			t.Fatalf("round trip: %x, want %x", again, b)
		}
	})
}

// TestHeartbeatLists: the members a heartbeat holds lost, then those it
// hears, come after its config hash, only when one list holds a member
// at least: a heartbeat without them decodes with none, and two empty
// lists written out are malformed (a heartbeat has one encoding), as is
// the lost list alone of the release before the heard one was added.
func TestHeartbeatLists(t *testing.T) {
	plain := heartbeat{member: Member{"node-1", 7}, hash: "abc"}
	withLost := plain
	withLost.lost = []Member{{"node-2", 9}, {"node-3", 1 << 60}}
	withHeard := plain
	withHeard.heard = []Member{{"node-4", 3}}
	both := withLost
	both.heard = withHeard.heard
	for _, h := range []heartbeat{plain, withLost, withHeard, both} {
		got, err := decodeHeartbeat(appendHeartbeat(nil, h))
		if err != nil || got.member != h.member || got.hash != h.hash || !slices.Equal(got.lost, h.lost) || !slices.Equal(got.heard, h.heard) {
			t.Errorf("decode(encode(%+v)) = %+v, %v", h, got, err)
		}
	}
	if !withLost.lists(Member{"node-3", 1 << 60}) || withLost.lists(Member{"node-3", 1}) || plain.lists(Member{"node-2", 9}) {
		t.Error("lists: a member is listed by name and epoch")
	}
	old := []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 7, 6, 'n', 'o', 'd', 'e', '-', '1', 3, 'a', 'b', 'c'}
	if !bytes.Equal(appendHeartbeat(nil, plain), old) {
		t.Errorf("a heartbeat without lists: %x, want %x", appendHeartbeat(nil, plain), old)
	}
	lostOnly := append(slices.Clone(old), 1, 0, 0, 0, 0, 0, 0, 0, 9, 1, 'x')
	for name, b := range map[string][]byte{
		"empty lists": append(slices.Clone(old), 0, 0),
		"one list":    append(slices.Clone(old), 0),
		"lost only":   lostOnly,
		"short":       append(slices.Clone(old), 1, 0, 0),
		"trailing":    append(appendHeartbeat(nil, both), 0),
	} {
		if _, err := decodeHeartbeat(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	if _, err := decodeHeartbeat(append(lostOnly, 0)); err != nil {
		t.Errorf("a lost list and an empty heard list: %v", err)
	}
}

func FuzzDecodeHeartbeat(f *testing.F) {
	f.Add(appendHeartbeat(nil, heartbeat{flags: hbLeave, member: Member{"node-1", 7}, hash: "abc"}))
	f.Add(appendHeartbeat(nil, heartbeat{member: Member{"node-1", 7}, hash: "abc", lost: []Member{{"node-2", 9}, {"", 0}}}))
	f.Add(appendHeartbeat(nil, heartbeat{member: Member{"node-1", 7}, hash: "abc", heard: []Member{{"node-3", 2}}}))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := decodeHeartbeat(b)
		if err != nil {
			return
		}
		if again := appendHeartbeat(nil, h); !bytes.Equal(again, b) {
			t.Fatalf("round trip: %x, want %x", again, b)
		}
	})
}

// fuzzRoundTrip seeds f with samples' encodings and checks that any bytes
// decode to a value or an error, never a panic, and that a value decoded
// encodes and decodes again to one that same finds equal to it.
func fuzzRoundTrip[T any](f *testing.F, samples []T, enc func([]byte, T) ([]byte, error), dec func([]byte) (T, error), same func(got, want T) bool) {
	for _, s := range samples {
		b, err := enc(nil, s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := dec(b)
		if err != nil {
			return
		}
		again, err := enc(nil, v)
		if err != nil {
			t.Fatalf("decoded %+v does not encode: %v", v, err)
		}
		if v2, err := dec(again); err != nil || !same(v2, v) {
			t.Fatalf("round trip: %+v, %v; want %+v", v2, err, v)
		}
	})
}
