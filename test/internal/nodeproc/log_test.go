package nodeproc

import (
	"slices"
	"testing"
)

// TestUnexpected checks which log lines fail a test.
func TestUnexpected(t *testing.T) {
	const (
		info    = `{"level":"INFO","msg":"listening"}`
		debug   = `{"level":"DEBUG","msg":"frame"}`
		warn    = `{"level":"WARN","msg":"bridge: webhook refused"}`
		errLine = `{"level":"ERROR","msg":"bridge: webhook refused"}`
	)
	cases := []struct {
		name    string
		log     string
		allowed []string
		want    []string
	}{
		{"info and debug", info + "\n" + debug + "\n", nil, nil},
		{"warning", info + "\n" + warn + "\n", nil, []string{warn}},
		{"allowed warning", warn + "\n", []string{"bridge: webhook refused"}, nil},
		{"allowed by prefix", warn + "\n", []string{"bridge: webhook*"}, nil},
		{"a prefix only with its star", warn + "\n", []string{"bridge: webhook"}, []string{warn}},
		{"error is never allowed", errLine + "\n", []string{"bridge: webhook refused"}, []string{errLine}},
		{"no level", `{"msg":"x"}` + "\n", nil, []string{`{"msg":"x"}`}},
		{"not an object", "42\nnull\n", nil, []string{"42", "null"}},
		{"race report", "==================\nWARNING: DATA RACE\n", nil, []string{"==================", "WARNING: DATA RACE"}},
		{"unfinished line", info + "\n" + `{"level":"INF`, nil, []string{`{"level":"INF`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newNodeLog()
			for i := range len(tc.log) { // a byte at a time: lines split across writes
				if _, err := l.Write([]byte{tc.log[i]}); err != nil {
					t.Fatal(err)
				}
			}
			if got := l.unexpected(tc.allowed); !slices.Equal(got, tc.want) {
				t.Errorf("unexpected(%q) = %q, want %q", tc.allowed, got, tc.want)
			}
			if got, want := l.String(), tc.log; got != want && got+"\n" != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
		})
	}
}

// TestMsgIs checks the record matcher.
func TestMsgIs(t *testing.T) {
	r := Record{"msg": "client: joined", "component": "workers[0].components[0]", "n": 1.0}
	cases := []struct {
		name  string
		match func(Record) bool
		want  bool
	}{
		{"message", MsgIs("client: joined"), true},
		{"other message", MsgIs("client: left"), false},
		{"attribute", MsgIs("client: joined", "component", "workers[0].components[0]"), true},
		{"other attribute value", MsgIs("client: joined", "component", "workers[0].components[1]"), false},
		{"absent attribute", MsgIs("client: joined", "realm", "realm1"), false},
		{"not a string", MsgIs("client: joined", "n", "1"), false},
	}
	for _, tc := range cases {
		if got := tc.match(r); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
