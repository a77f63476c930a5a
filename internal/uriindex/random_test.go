package uriindex

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// randomPattern returns a pattern for m over a tiny alphabet, so that
// patterns and URIs collide often.
func randomPattern(rng *rand.Rand, m Match) string {
	if m == Prefix {
		var b strings.Builder
		for range rng.IntN(7) {
			b.WriteByte("ab."[rng.IntN(3)])
		}
		return b.String()
	}
	comps := []string{"a", "b", "ab"}
	if m == Wildcard {
		comps = append(comps, "", "")
	}
	return randomComponents(rng, comps)
}

// randomURI returns a valid URI over the same alphabet.
func randomURI(rng *rand.Rand) string {
	return randomComponents(rng, []string{"a", "b", "ab"})
}

func randomComponents(rng *rand.Rand, comps []string) string {
	parts := make([]string, 1+rng.IntN(4))
	for i := range parts {
		parts[i] = comps[rng.IntN(len(comps))]
	}
	return strings.Join(parts, ".")
}

// TestRandomAgainstReference runs a few thousand random sets and deletes
// and checks Match, Best, Get and All against the naive reference as it
// goes.
func TestRandomAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(2024, 7))
	var x Index[int]
	var r reference
	for i := range 4000 {
		m := Match(rng.IntN(3))
		p := randomPattern(rng, m)
		if rng.IntN(3) == 0 {
			if got, want := x.Delete(p, m), r.delete(p, m); got != want {
				t.Fatalf("op %d: Delete(%q, %v) = %v, want %v", i, p, m, got, want)
			}
		} else {
			x.Set(p, m, i)
			r.set(p, m, i)
		}
		if i%50 != 0 {
			continue
		}
		checkStore(t, &x, &r)
		for range 40 {
			u := randomURI(rng)
			checkMatch(t, &x, &r, u)
			checkBest(t, &x, &r, u)
		}
	}
	if len(r.entries) < 50 {
		t.Fatalf("only %d entries at the end: the test exercises too little", len(r.entries))
	}
	deleteAll(t, &x, &r)
}
