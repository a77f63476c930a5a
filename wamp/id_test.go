package wamp

import "testing"

func TestGlobalIDInRange(t *testing.T) {
	seen := make(map[ID]bool)
	for i := 0; i < 10000; i++ {
		id := GlobalID()
		if id < 1 || id > MaxID {
			t.Fatalf("GlobalID() = %d, outside [1, 2^53]", id)
		}
		seen[id] = true
	}
	if len(seen) < 9990 {
		t.Fatalf("only %d distinct IDs in 10000 draws", len(seen))
	}
}

func TestIDGenSequenceAndWrap(t *testing.T) {
	var g IDGen
	for want := ID(1); want <= 3; want++ {
		if got := g.Next(); got != want {
			t.Fatalf("Next() = %d, want %d", got, want)
		}
	}
	g.n.Store(MaxID - 1)
	if got := g.Next(); got != MaxID {
		t.Fatalf("Next() = %d, want 2^53", got)
	}
	if got := g.Next(); got != 1 {
		t.Fatalf("Next() after 2^53 = %d, want 1", got)
	}
}
