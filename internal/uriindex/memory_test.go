package uriindex

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"
)

// TestDeletedPatternIsFreed: once a pattern is deleted, the index keeps
// nothing of its string, whatever the patterns that share its nodes. A
// node's label or edge that were a substring of the first pattern through
// it kept that whole pattern alive as long as a shorter one used the node:
// a few bytes held 64 KiB (a 1 MiB message, 1 MiB).
func TestDeletedPatternIsFreed(t *testing.T) {
	tests := []struct {
		name   string
		m      Match
		long   string // made of tail, after the others
		others []string
	}{
		{"prefix, split by a shorter one", Prefix, "x.", []string{"x"}},
		{"prefix, split below its start", Prefix, "x.", []string{"x.b"}},
		{"prefix, split twice", Prefix, "x.a", []string{"x.b", "x"}},
		{"wildcard, inline edge", Wildcard, "x.", []string{"x.b"}},
		{"wildcard, map of edges", Wildcard, "x.", []string{"x.b", "x.c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var x Index[int]
			long := tt.long + strings.Repeat("a", 64<<10)
			freed := weak.Make(unsafe.StringData(long))
			x.Set(long, tt.m, 0)
			for i, p := range tt.others {
				x.Set(p, tt.m, i+1)
			}
			if !x.Delete(long, tt.m) {
				t.Fatal("Delete = false")
			}
			long = ""
			runtime.GC()
			if freed.Value() != nil {
				t.Errorf("the deleted pattern is still held")
			}
			for i, p := range tt.others {
				if v, ok := x.Get(p, tt.m); !ok || v != i+1 {
					t.Errorf("Get(%q) = %d %v after the delete", p, v, ok)
				}
			}
		})
	}
}
