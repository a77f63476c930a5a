package uriindex

import (
	"strconv"
	"testing"
)

// benchIndex returns an index with 10,000 exact, 1,000 prefix and 1,000
// wildcard patterns shaped like application URIs, and URIs to look up that
// hit each kind.
func benchIndex() (*Index[int], []string) {
	var x Index[int]
	for i := range 10000 {
		x.Set("com.example.app"+strconv.Itoa(i%50)+".proc"+strconv.Itoa(i), Exact, i)
	}
	for i := range 1000 {
		x.Set("com.example.app"+strconv.Itoa(i%50)+".ns"+strconv.Itoa(i), Prefix, i)
	}
	x.Set("com.example.", Prefix, -1)
	for i := range 1000 {
		x.Set("com.example..item"+strconv.Itoa(i)+".get", Wildcard, i)
	}
	x.Set("com.example..item7.", Wildcard, -2)
	x.Set("...", Wildcard, -3)
	uris := []string{
		"com.example.app3.proc1003",   // exact, prefix com.example., wildcard ...
		"com.example.app7.ns7.deeper", // two prefixes
		"com.example.app1.item7.get",  // prefix and three wildcards
		"org.other.thing.x",           // one wildcard
		"org.nothing",                 // no match
	}
	return &x, uris
}

func TestMatchAndBestDoNotAllocate(t *testing.T) {
	x, uris := benchIndex()
	n := 0
	count := func(string, Match, int) bool { n++; return true }
	allocs := testing.AllocsPerRun(100, func() {
		for _, u := range uris {
			x.Match(u, count)
			x.Best(u)
		}
	})
	if allocs != 0 {
		t.Errorf("Match and Best allocate %v times per run", allocs)
	}
	if n == 0 {
		t.Error("the benchmark URIs match nothing")
	}
}

func BenchmarkMatch(b *testing.B) {
	x, uris := benchIndex()
	n := 0
	count := func(string, Match, int) bool { n++; return true }
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x.Match(uris[i%len(uris)], count)
	}
}

func BenchmarkBest(b *testing.B) {
	x, uris := benchIndex()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x.Best(uris[i%len(uris)])
	}
}
