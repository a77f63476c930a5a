package wamp

import (
	"crypto/rand"
	"encoding/binary"
	"sync/atomic"
)

// MaxID is the largest WAMP ID, 2^53, so that IDs are exact in IEEE doubles.
const MaxID = 1 << 53

// GlobalID returns a random ID in [1, 2^53] for the global scope (session
// and publication IDs).
func GlobalID() ID {
	var b [8]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			panic("wamp: crypto/rand failed: " + err.Error())
		}
		// 54 random bits cover [0, 2^54); keep [1, 2^53] and draw again
		// otherwise, so every ID is equally likely.
		v := binary.LittleEndian.Uint64(b[:]) & (1<<54 - 1)
		if v >= 1 && v <= MaxID {
			return ID(v)
		}
	}
}

// IDGen hands out sequential IDs 1, 2, ..., 2^53, 1, ... for the router and
// session scopes. The zero value is ready; it is safe for concurrent use.
type IDGen struct {
	n atomic.Uint64
}

// Next returns the next ID in sequence.
func (g *IDGen) Next() ID {
	for {
		old := g.n.Load()
		next := old + 1
		if next > MaxID {
			next = 1
		}
		if g.n.CompareAndSwap(old, next) {
			return ID(next)
		}
	}
}
