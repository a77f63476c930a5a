package uriindex

import (
	"slices"
	"testing"
)

type entry struct {
	pattern string
	m       Match
}

// build returns an index holding entries, each with its position as value.
func build(entries ...entry) *Index[int] {
	var x Index[int]
	for i, e := range entries {
		x.Set(e.pattern, e.m, i)
	}
	return &x
}

// matched returns what Match visits, as "policy:pattern" in visiting order.
func matched(x *Index[int], uri string) []string {
	var out []string
	x.Match(uri, func(p string, m Match, _ int) bool {
		out = append(out, m.String()+":"+p)
		return true
	})
	return out
}

func TestParseMatch(t *testing.T) {
	for _, m := range []Match{Exact, Prefix, Wildcard} {
		if got, ok := ParseMatch(m.String()); !ok || got != m {
			t.Errorf("ParseMatch(%q) = %v, %v", m.String(), got, ok)
		}
	}
	for _, s := range []string{"", "Exact", "prefix ", "regex"} {
		if _, ok := ParseMatch(s); ok {
			t.Errorf("ParseMatch(%q) succeeded", s)
		}
	}
	if got := Match(7).String(); got != "Match(7)" {
		t.Errorf("Match(7).String() = %q", got)
	}
}

func TestMatchRules(t *testing.T) {
	tests := []struct {
		name    string
		entries []entry
		uri     string
		want    []string
	}{
		{"exact equal", []entry{{"a.b", Exact}}, "a.b", []string{"exact:a.b"}},
		{"exact is not prefix", []entry{{"a.b", Exact}}, "a.b.c", nil},
		{"exact shorter uri", []entry{{"a.b", Exact}}, "a", nil},
		{"prefix equal", []entry{{"a.b", Prefix}}, "a.b", []string{"prefix:a.b"}},
		{"prefix deeper", []entry{{"a.b", Prefix}}, "a.b.c.d", []string{"prefix:a.b"}},
		{"prefix is on the string", []entry{{"a.b", Prefix}}, "a.bc", []string{"prefix:a.b"}},
		{"prefix longer than uri", []entry{{"a.b", Prefix}}, "a", nil},
		{"prefix differs", []entry{{"a.b", Prefix}}, "a.c", nil},
		{"trailing dot prefix deeper", []entry{{"a.b.", Prefix}}, "a.b.c", []string{"prefix:a.b."}},
		{"trailing dot prefix not itself", []entry{{"a.b.", Prefix}}, "a.b", nil},
		{"trailing dot prefix not bc", []entry{{"a.b.", Prefix}}, "a.bc", nil},
		{"empty prefix matches all", []entry{{"", Prefix}}, "x.y", []string{"prefix:"}},
		{"prefixes shortest first",
			[]entry{{"a.b.c", Prefix}, {"a", Prefix}, {"a.b", Prefix}, {"a.b.d", Prefix}},
			"a.b.c.d", []string{"prefix:a", "prefix:a.b", "prefix:a.b.c"}},
		{"wildcard middle", []entry{{"a..c", Wildcard}}, "a.b.c", []string{"wildcard:a..c"}},
		{"wildcard too few components", []entry{{"a..c", Wildcard}}, "a.c", nil},
		{"wildcard too many components", []entry{{"a..c", Wildcard}}, "a.b.b.c", nil},
		{"wildcard concrete differs", []entry{{"a..c", Wildcard}}, "a.b.d", nil},
		{"wildcard start", []entry{{".b.c", Wildcard}}, "x.b.c", []string{"wildcard:.b.c"}},
		{"wildcard start differs", []entry{{".b.c", Wildcard}}, "x.y.c", nil},
		{"wildcard end", []entry{{"a.b.", Wildcard}}, "a.b.z", []string{"wildcard:a.b."}},
		{"wildcard end needs a component", []entry{{"a.b.", Wildcard}}, "a.b", nil},
		{"wildcard end not deeper", []entry{{"a.b.", Wildcard}}, "a.b.z.z", nil},
		{"wildcard all empty", []entry{{"..", Wildcard}}, "x.y.z", []string{"wildcard:.."}},
		{"wildcard all empty count", []entry{{"..", Wildcard}}, "x.y", nil},
		{"wildcard no empty is exact", []entry{{"a.b", Wildcard}}, "a.b", []string{"wildcard:a.b"}},
		{"wildcard no empty not prefix", []entry{{"a.b", Wildcard}}, "a.b.c", nil},
		{"wildcard single empty", []entry{{"", Wildcard}}, "a", []string{"wildcard:"}},
		{"wildcard single empty count", []entry{{"", Wildcard}}, "a.b", nil},
		{"wildcards most specific first",
			[]entry{{"..c", Wildcard}, {"a..c", Wildcard}, {".b.", Wildcard}, {"a.b.", Wildcard}, {"a..", Wildcard}},
			"a.b.c", []string{"wildcard:a.b.", "wildcard:a..c", "wildcard:a..", "wildcard:.b.", "wildcard:..c"}},
		{"policies in order",
			[]entry{{"a..", Wildcard}, {"a.", Prefix}, {"a.b.c", Exact}, {"a", Prefix}, {"a.b.c", Wildcard}},
			"a.b.c", []string{"exact:a.b.c", "prefix:a", "prefix:a.", "wildcard:a.b.c", "wildcard:a.."}},
		{"same pattern, three policies",
			[]entry{{"a.b", Wildcard}, {"a.b", Prefix}, {"a.b", Exact}},
			"a.b", []string{"exact:a.b", "prefix:a.b", "wildcard:a.b"}},
		{"nothing", []entry{{"a", Exact}, {"b", Prefix}, {"c.", Wildcard}}, "d.e", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matched(build(tt.entries...), tt.uri); !slices.Equal(got, tt.want) {
				t.Errorf("Match(%q) = %q, want %q", tt.uri, got, tt.want)
			}
		})
	}
}

func TestBestPrecedence(t *testing.T) {
	// The registrations of the example in the WAMP spec, "Pattern-based
	// Registrations", plus a few of our own.
	spec := []entry{
		{"a1.b2.c3.d4.e55", Exact},
		{"a1.b2.c3", Prefix},
		{"a1.b2.c3.d4", Prefix},
		{"a1.b2..d4.e5", Wildcard},
		{"a1.b2.c33..e5", Wildcard},
		{"a1.b2..d4.e5..g7", Wildcard},
		{"a1.b2..d4..f6.g7", Wildcard},
	}
	tests := []struct {
		name    string
		entries []entry
		uri     string
		want    string // "policy:pattern", "" for no match
	}{
		{"spec exact", spec, "a1.b2.c3.d4.e55", "exact:a1.b2.c3.d4.e55"},
		{"spec single prefix", spec, "a1.b2.c3.d98.e74", "prefix:a1.b2.c3"},
		{"spec longest prefix", spec, "a1.b2.c3.d4.e325", "prefix:a1.b2.c3.d4"},
		{"spec single wildcard", spec, "a1.b2.c55.d4.e5", "wildcard:a1.b2..d4.e5"},
		// The spec's example says "no prefix match" here, but by its own
		// prefix rule (com.myapp.myobject1 matches com.myapp.myobject1-x),
		// and Crossbar's, "a1.b2.c3" is a string prefix of "a1.b2.c33...".
		{"spec string prefix", spec, "a1.b2.c33.d4.e5", "prefix:a1.b2.c3"},
		{"spec longer first portion", spec[3:], "a1.b2.c33.d4.e5", "wildcard:a1.b2.c33..e5"},
		{"spec longer second portion", spec, "a1.b2.c88.d4.e5.f6.g7", "wildcard:a1.b2..d4.e5..g7"},
		{"spec nothing", spec, "a2.b2.c2.d2.e2", ""},
		{"exact beats prefix and wildcard",
			[]entry{{"a.b", Prefix}, {"a.b", Wildcard}, {"a.b", Exact}}, "a.b", "exact:a.b"},
		{"prefix beats wildcard",
			[]entry{{"a.b.c", Wildcard}, {"a", Prefix}}, "a.b.c", "prefix:a"},
		{"longest prefix is on the string",
			[]entry{{"a.b", Prefix}, {"a.b.", Prefix}}, "a.bc", "prefix:a.b"},
		{"longest prefix with trailing dot",
			[]entry{{"a.b", Prefix}, {"a.b.", Prefix}}, "a.b.c", "prefix:a.b."},
		{"empty prefix last resort",
			[]entry{{"", Prefix}, {"x", Prefix}}, "a.b", "prefix:"},
		{"concrete first component beats empty",
			[]entry{{"..c", Wildcard}, {"a..", Wildcard}}, "a.b.c", "wildcard:a.."},
		{"concrete middle beats empty",
			[]entry{{"a..c", Wildcard}, {"a.b.", Wildcard}}, "a.b.c", "wildcard:a.b."},
		{"concrete last beats empty",
			[]entry{{"a.b.", Wildcard}, {"a.b.c", Wildcard}}, "a.b.c", "wildcard:a.b.c"},
		{"leftmost difference decides, not the count",
			[]entry{{".b.c.d", Wildcard}, {"a...", Wildcard}}, "a.b.c.d", "wildcard:a..."},
		{"all empty loses",
			[]entry{{"...", Wildcard}, {"...d", Wildcard}}, "a.b.c.d", "wildcard:...d"},
		{"wildcard of wrong length ignored",
			[]entry{{"a.b.c.", Wildcard}, {"..", Wildcard}}, "a.b.c", "wildcard:.."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := build(tt.entries...)
			p, m, v, ok := x.Best(tt.uri)
			got := ""
			if ok {
				got = m.String() + ":" + p
				if want, _ := x.Get(p, m); v != want {
					t.Errorf("Best(%q) value = %d, Get gives %d", tt.uri, v, want)
				}
			}
			if got != tt.want {
				t.Errorf("Best(%q) = %q, want %q", tt.uri, got, tt.want)
			}
		})
	}
}

func TestZeroValue(t *testing.T) {
	var x Index[string]
	if x.Len() != 0 {
		t.Errorf("Len() = %d", x.Len())
	}
	if _, _, _, ok := x.Best("a"); ok {
		t.Error("Best on an empty index found something")
	}
	x.Match("a", func(string, Match, string) bool { t.Error("Match visited"); return true })
	x.All(func(string, Match, string) bool { t.Error("All visited"); return true })
	for _, m := range []Match{Exact, Prefix, Wildcard, Match(9)} {
		if _, ok := x.Get("a", m); ok {
			t.Errorf("Get(a, %v) found something", m)
		}
		if x.Delete("a", m) {
			t.Errorf("Delete(a, %v) = true", m)
		}
	}
}

func TestSetReplaces(t *testing.T) {
	for _, m := range []Match{Exact, Prefix, Wildcard} {
		var x Index[string]
		x.Set("a.b", m, "old")
		x.Set("a.b", m, "new")
		if x.Len() != 1 {
			t.Errorf("%v: Len() = %d after replacing, want 1", m, x.Len())
		}
		if v, ok := x.Get("a.b", m); !ok || v != "new" {
			t.Errorf("%v: Get = %q, %v, want new", m, v, ok)
		}
		if _, _, v, _ := x.Best("a.b"); v != "new" {
			t.Errorf("%v: Best value = %q, want new", m, v)
		}
	}
}

func TestGetIsNotMatching(t *testing.T) {
	x := build(entry{"a.b", Prefix}, entry{"a..c", Wildcard}, entry{"a.b.c", Exact})
	absent := []entry{
		{"a", Prefix}, {"a.b.c", Prefix}, {"a.b.c", Wildcard}, {"a.b", Exact},
		{"a..", Wildcard}, {"a.", Wildcard}, {"a.b", Wildcard}, {"a..c", Prefix},
	}
	for _, e := range absent {
		if v, ok := x.Get(e.pattern, e.m); ok {
			t.Errorf("Get(%q, %v) = %d, want absent", e.pattern, e.m, v)
		}
	}
}

func TestDeleteAbsent(t *testing.T) {
	x := build(entry{"a.b", Prefix}, entry{"a.bc", Prefix}, entry{"a..c", Wildcard}, entry{"a.b", Exact})
	absent := []entry{
		{"a", Prefix}, {"a.b.", Prefix}, {"a.bcd", Prefix}, {"", Prefix}, {"a.b", Wildcard},
		{"a..", Wildcard}, {"a..c.d", Wildcard}, {"a.b.c", Exact}, {"a..c", Exact},
	}
	for _, e := range absent {
		if x.Delete(e.pattern, e.m) {
			t.Errorf("Delete(%q, %v) = true for an absent entry", e.pattern, e.m)
		}
	}
	if x.Len() != 4 {
		t.Errorf("Len() = %d after deleting absent entries, want 4", x.Len())
	}
	if got := matched(x, "a.bc"); !slices.Equal(got, []string{"prefix:a.b", "prefix:a.bc"}) {
		t.Errorf("Match(a.bc) = %q after deleting absent entries", got)
	}
}

func TestDeleteThenMatch(t *testing.T) {
	x := build(
		entry{"a.b.c", Exact}, entry{"a", Prefix}, entry{"a.b", Prefix}, entry{"a.b.c", Prefix},
		entry{"a..c", Wildcard}, entry{"a.b.", Wildcard},
	)
	steps := []struct {
		del  entry
		want []string
	}{
		{entry{"a.b", Prefix}, []string{"exact:a.b.c", "prefix:a", "prefix:a.b.c", "wildcard:a.b.", "wildcard:a..c"}},
		{entry{"a.b.c", Exact}, []string{"prefix:a", "prefix:a.b.c", "wildcard:a.b.", "wildcard:a..c"}},
		{entry{"a.b.", Wildcard}, []string{"prefix:a", "prefix:a.b.c", "wildcard:a..c"}},
		{entry{"a", Prefix}, []string{"prefix:a.b.c", "wildcard:a..c"}},
		{entry{"a.b.c", Prefix}, []string{"wildcard:a..c"}},
		{entry{"a..c", Wildcard}, nil},
	}
	for _, s := range steps {
		if !x.Delete(s.del.pattern, s.del.m) {
			t.Fatalf("Delete(%q, %v) = false", s.del.pattern, s.del.m)
		}
		if got := matched(x, "a.b.c"); !slices.Equal(got, s.want) {
			t.Errorf("after Delete(%q, %v): Match = %q, want %q", s.del.pattern, s.del.m, got, s.want)
		}
		if x.Delete(s.del.pattern, s.del.m) {
			t.Errorf("second Delete(%q, %v) = true", s.del.pattern, s.del.m)
		}
	}
	if x.Len() != 0 {
		t.Errorf("Len() = %d at the end, want 0", x.Len())
	}
}

func TestMatchStops(t *testing.T) {
	x := build(entry{"a", Exact}, entry{"", Prefix}, entry{"a", Prefix}, entry{"", Wildcard}, entry{"a", Wildcard})
	for stop := 1; stop <= 5; stop++ {
		n := 0
		x.Match("a", func(string, Match, int) bool { n++; return n < stop })
		if n != stop {
			t.Errorf("fn returning false on visit %d: %d visits", stop, n)
		}
	}
}

func TestAll(t *testing.T) {
	entries := []entry{{"a", Exact}, {"b", Exact}, {"a", Prefix}, {"a.b", Prefix}, {"a.", Wildcard}, {"..", Wildcard}}
	x := build(entries...)
	var got []entry
	x.All(func(p string, m Match, v int) bool {
		if entries[v] != (entry{p, m}) {
			t.Errorf("All gave %q %v with value %d, which was set for %v", p, m, v, entries[v])
		}
		got = append(got, entry{p, m})
		return true
	})
	if len(got) != len(entries) {
		t.Fatalf("All visited %d entries, want %d", len(got), len(entries))
	}
	for i := 1; i < len(got); i++ {
		if got[i-1].m > got[i].m {
			t.Errorf("All visited %v before %v", got[i-1], got[i])
		}
	}
	n := 0
	x.All(func(string, Match, int) bool { n++; return n < 3 })
	if n != 3 {
		t.Errorf("All went on after fn returned false: %d visits", n)
	}
}

func TestSetInvalidMatchPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Set with Match(3) did not panic")
		}
	}()
	var x Index[int]
	x.Set("a", Match(3), 1)
}
