package uriindex

import (
	"strings"
	"testing"
)

// applyOps builds x and r from ops, one operation a line: 'e', 'p' or 'w'
// then a pattern sets it with that policy, 'E', 'P' or 'W' deletes it, any
// other first byte sets the rest of the line with policy byte%3. The value
// is the line number.
func applyOps(t *testing.T, x *Index[int], r *reference, ops string) {
	t.Helper()
	for i, line := range strings.Split(ops, "\n") {
		if line == "" {
			continue
		}
		p := line[1:]
		if m, ok := opDelete(line[0]); ok {
			if got, want := x.Delete(p, m), r.delete(p, m); got != want {
				t.Fatalf("Delete(%q, %v) = %v, want %v", p, m, got, want)
			}
			continue
		}
		m := opSet(line[0])
		x.Set(p, m, i)
		r.set(p, m, i)
	}
}

func opDelete(c byte) (Match, bool) {
	m, ok := map[byte]Match{'E': Exact, 'P': Prefix, 'W': Wildcard}[c]
	return m, ok
}

func opSet(c byte) Match {
	switch c {
	case 'e':
		return Exact
	case 'p':
		return Prefix
	case 'w':
		return Wildcard
	}
	return Match(c % 3)
}

// fuzzURIs returns the URIs to probe: uri, its prefixes (so that prefix
// patterns and shorter wildcards get hits) and every stored pattern.
func fuzzURIs(r *reference, uri string) []string {
	uris := []string{uri}
	for i := range min(len(uri), 64) {
		uris = append(uris, uri[:i])
	}
	for _, e := range r.entries {
		uris = append(uris, e.pattern)
	}
	return uris
}

func addSeeds(f *testing.F) {
	f.Add("pa.b\npa.b.\npa\nea.b.c\nwa..c\nw..c\nwa.b.\nw..\n", "a.b.c")
	f.Add("wa1.b2..d4.e5\nwa1.b2.c33..e5\nwa1.b2..d4.e5..g7\nwa1.b2..d4..f6.g7\n", "a1.b2.c33.d4.e5")
	f.Add("wa1.b2..d4.e5..g7\nwa1.b2..d4..f6.g7\n", "a1.b2.c88.d4.e5.f6.g7")
	f.Add("pcom.example\npcom.ex\nPcom.ex\npcom.exa\nPcom.example\n", "com.example.x")
	f.Add("w\nw.\nw..\nwa\nwa.\nw.a\nW.\n", "a.a")
	f.Add("e\np\nw\n", "")
	f.Add("pabc\npabd\npab\nPab\nPabc\npa\n", "abdx")
	f.Add("wa.b.c\nwa..c\nw.b.c\nw..\nWa..c\nWa.b.c\n", "a.b.c")
	f.Add("\x00a\n\x01a\n\x02a\n", "a")
}

func FuzzMatch(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, ops, uri string) {
		var x Index[int]
		var r reference
		applyOps(t, &x, &r, ops)
		checkStore(t, &x, &r)
		for _, u := range fuzzURIs(&r, uri) {
			checkMatch(t, &x, &r, u)
		}
	})
}

func FuzzBest(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, ops, uri string) {
		var x Index[int]
		var r reference
		applyOps(t, &x, &r, ops)
		checkStore(t, &x, &r)
		for _, u := range fuzzURIs(&r, uri) {
			checkBest(t, &x, &r, u)
		}
		deleteAll(t, &x, &r)
	})
}

// deleteAll deletes every entry of r from x and checks that x is then
// empty, with its trees pruned back to bare roots.
func deleteAll(t *testing.T, x *Index[int], r *reference) {
	t.Helper()
	for _, e := range r.entries {
		if !x.Delete(e.pattern, e.m) {
			t.Fatalf("Delete(%q, %v) = false for a stored entry", e.pattern, e.m)
		}
	}
	if x.Len() != 0 || len(x.exact) != 0 || len(x.prefix.children) != 0 || x.prefix.set ||
		!x.wild.empty() {
		t.Fatalf("index not empty after deleting everything: Len %d", x.Len())
	}
}
