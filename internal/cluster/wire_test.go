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

// TestHeartbeatLost: the members a heartbeat holds lost come after its
// config hash, only when there is one at least: a heartbeat without them
// (as nodes sent before they were added) decodes with none, and an empty
// list written out is malformed (a heartbeat has one encoding).
func TestHeartbeatLost(t *testing.T) {
	plain := heartbeat{member: Member{"node-1", 7}, hash: "abc"}
	withLost := plain
	withLost.lost = []Member{{"node-2", 9}, {"node-3", 1 << 60}}
	for _, h := range []heartbeat{plain, withLost} {
		got, err := decodeHeartbeat(appendHeartbeat(nil, h))
		if err != nil || got.member != h.member || got.hash != h.hash || !slices.Equal(got.lost, h.lost) {
			t.Errorf("decode(encode(%+v)) = %+v, %v", h, got, err)
		}
	}
	if !withLost.lists(Member{"node-3", 1 << 60}) || withLost.lists(Member{"node-3", 1}) || plain.lists(Member{"node-2", 9}) {
		t.Error("lists: a member is listed by name and epoch")
	}
	old := []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 7, 6, 'n', 'o', 'd', 'e', '-', '1', 3, 'a', 'b', 'c'}
	if !bytes.Equal(appendHeartbeat(nil, plain), old) {
		t.Errorf("a heartbeat without lost members: %x, want the earlier format %x", appendHeartbeat(nil, plain), old)
	}
	for name, b := range map[string][]byte{
		"empty list": append(slices.Clone(old), 0),
		"short":      append(slices.Clone(old), 1, 0, 0),
		"trailing":   append(appendHeartbeat(nil, withLost), 0),
	} {
		if _, err := decodeHeartbeat(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

func FuzzDecodeHeartbeat(f *testing.F) {
	f.Add(appendHeartbeat(nil, heartbeat{flags: hbLeave, member: Member{"node-1", 7}, hash: "abc"}))
	f.Add(appendHeartbeat(nil, heartbeat{member: Member{"node-1", 7}, hash: "abc", lost: []Member{{"node-2", 9}, {"", 0}}}))
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
