package uriindex

import (
	"cmp"
	"slices"
	"strings"
	"testing"
)

// reference is the naive matcher the index is checked against: a slice of
// entries and straightforward loops, written from the rules in the package
// documentation rather than from the index's algorithms. In particular its
// wildcard ranking is the WAMP spec's wording (compare the lengths of the
// runs of concrete components, run by run), not the trie's visiting order.
type reference struct {
	entries []refEntry
}

type refEntry struct {
	pattern string
	m       Match
	v       int
}

func (r *reference) set(p string, m Match, v int) {
	for i, e := range r.entries {
		if e.pattern == p && e.m == m {
			r.entries[i].v = v
			return
		}
	}
	r.entries = append(r.entries, refEntry{p, m, v})
}

func (r *reference) delete(p string, m Match) bool {
	for i, e := range r.entries {
		if e.pattern == p && e.m == m {
			r.entries = slices.Delete(r.entries, i, i+1)
			return true
		}
	}
	return false
}

func refMatches(p string, m Match, uri string) bool {
	switch m {
	case Exact:
		return p == uri
	case Prefix:
		return strings.HasPrefix(uri, p)
	}
	pc, uc := strings.Split(p, "."), strings.Split(uri, ".")
	if len(pc) != len(uc) {
		return false
	}
	for i := range pc {
		if pc[i] != "" && pc[i] != uc[i] {
			return false
		}
	}
	return true
}

// concreteRuns returns the lengths of the runs of non-empty components of
// a wildcard pattern, one run before each empty component and one after
// the last: "a1.b2..d4.e5" gives [2 2], "..c" gives [0 0 1].
func concreteRuns(p string) []int {
	runs := []int{0}
	for _, c := range strings.Split(p, ".") {
		if c == "" {
			runs = append(runs, 0)
		} else {
			runs[len(runs)-1]++
		}
	}
	return runs
}

// moreSpecific orders wildcard patterns most specific first.
func moreSpecific(a, b refEntry) int {
	return -slices.Compare(concreteRuns(a.pattern), concreteRuns(b.pattern))
}

// match returns every entry matching uri in the order Index.Match
// documents: exact, prefixes shortest first, wildcards most specific first.
func (r *reference) match(uri string) []refEntry {
	var out [3][]refEntry
	for _, e := range r.entries {
		if refMatches(e.pattern, e.m, uri) {
			out[e.m] = append(out[e.m], e)
		}
	}
	slices.SortFunc(out[Prefix], func(a, b refEntry) int {
		return cmp.Compare(len(a.pattern), len(b.pattern))
	})
	slices.SortFunc(out[Wildcard], moreSpecific)
	return slices.Concat(out[Exact], out[Prefix], out[Wildcard])
}

// best returns the entry Index.Best documents: exact, else the longest
// prefix, else the most specific wildcard.
func (r *reference) best(uri string) (refEntry, bool) {
	var exact, prefix, wild []refEntry
	for _, e := range r.entries {
		if !refMatches(e.pattern, e.m, uri) {
			continue
		}
		switch e.m {
		case Exact:
			exact = append(exact, e)
		case Prefix:
			prefix = append(prefix, e)
		case Wildcard:
			wild = append(wild, e)
		}
	}
	switch {
	case len(exact) > 0:
		return exact[0], true
	case len(prefix) > 0:
		return slices.MaxFunc(prefix, func(a, b refEntry) int {
			return cmp.Compare(len(a.pattern), len(b.pattern))
		}), true
	case len(wild) > 0:
		return slices.MinFunc(wild, moreSpecific), true
	}
	return refEntry{}, false
}

// checkMatch fails t unless x and r agree on Match for uri, both for a
// full visit and for every visit that fn stops early.
func checkMatch(t *testing.T, x *Index[int], r *reference, uri string) {
	t.Helper()
	want := r.match(uri)
	for stop := 1; stop <= len(want)+1; stop++ {
		var got []refEntry
		x.Match(uri, func(p string, m Match, v int) bool {
			got = append(got, refEntry{p, m, v})
			return len(got) < stop
		})
		if w := want[:min(stop, len(want))]; !slices.Equal(got, w) {
			t.Fatalf("Match(%q) stopping after %d = %v, want %v (entries %v)",
				uri, stop, got, w, r.entries)
		}
	}
}

// checkBest fails t unless x and r agree on Best for uri.
func checkBest(t *testing.T, x *Index[int], r *reference, uri string) {
	t.Helper()
	p, m, v, ok := x.Best(uri)
	want, wantOK := r.best(uri)
	if ok != wantOK || ok && (refEntry{p, m, v}) != want {
		t.Fatalf("Best(%q) = %q %v %d %v, want %v %v (entries %v)",
			uri, p, m, v, ok, want, wantOK, r.entries)
	}
}

// checkStore fails t unless x holds exactly r's entries (Get and All) and
// its trees are in canonical form.
func checkStore(t *testing.T, x *Index[int], r *reference) {
	t.Helper()
	if x.Len() != len(r.entries) {
		t.Fatalf("Len() = %d, reference has %d", x.Len(), len(r.entries))
	}
	for _, e := range r.entries {
		if v, ok := x.Get(e.pattern, e.m); !ok || v != e.v {
			t.Fatalf("Get(%q, %v) = %d %v, want %d", e.pattern, e.m, v, ok, e.v)
		}
	}
	var all []refEntry
	x.All(func(p string, m Match, v int) bool {
		all = append(all, refEntry{p, m, v})
		return true
	})
	order := func(a, b refEntry) int {
		return cmp.Or(cmp.Compare(a.m, b.m), strings.Compare(a.pattern, b.pattern))
	}
	want := slices.Clone(r.entries)
	slices.SortFunc(all, order)
	slices.SortFunc(want, order)
	if !slices.Equal(all, want) {
		t.Fatalf("All() = %v, want %v", all, want)
	}
	checkPrefixTree(t, &x.prefix, true)
	checkWildTree(t, &x.wild, true)
}

// checkPrefixTree checks the radix tree invariants: children sorted by
// distinct first bytes, no empty labels, and no node below the root that
// has no value and fewer than two children (Delete must prune and merge).
func checkPrefixTree(t *testing.T, n *prefixNode[int], root bool) {
	t.Helper()
	if !root && (n.label == "" || !n.set && len(n.children) < 2) {
		t.Fatalf("prefix tree: non-canonical node %q (set %v, %d children)",
			n.label, n.set, len(n.children))
	}
	for i, c := range n.children {
		if i > 0 && n.children[i-1].label[0] >= c.label[0] {
			t.Fatalf("prefix tree: children of %q out of order", n.label)
		}
		checkPrefixTree(t, c, false)
	}
}

// checkWildTree checks that no node below the root is empty (Delete must
// prune) and that a node keeps a single concrete child inline, two or
// more in its map.
func checkWildTree(t *testing.T, n *wildNode[int], root bool) {
	t.Helper()
	if !root && n.empty() {
		t.Fatal("wildcard tree: empty node left behind")
	}
	if n.children != nil && (len(n.children) < 2 || n.one != nil) || n.one != nil && n.oneComp == "" {
		t.Fatalf("wildcard tree: %d children in the map, inline %q (%v)", len(n.children), n.oneComp, n.one != nil)
	}
	if n.one != nil {
		checkWildTree(t, n.one, false)
	}
	for _, c := range n.children {
		checkWildTree(t, c, false)
	}
	if n.any != nil {
		checkWildTree(t, n.any, false)
	}
}
