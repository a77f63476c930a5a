package cluster

import (
	"bytes"
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

func FuzzDecodeHeartbeat(f *testing.F) {
	f.Add(appendHeartbeat(nil, heartbeat{flags: hbLeave, member: Member{"node-1", 7}, hash: "abc"}))
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
