package wamp

import (
	"math/rand/v2"
	"sync/atomic"
)

// MaxID is the largest WAMP ID, 2^53, so that IDs are exact in IEEE doubles.
const MaxID = 1 << 53

// GlobalID returns a random ID, uniform in [1, 2^53], for the global scope
// (session and publication IDs). It uses math/rand/v2's global generator
// (ChaCha8, seeded from the OS), which is safe for concurrent use and cheap
// enough for the publish path.
func GlobalID() ID { return ID(rand.Uint64N(MaxID) + 1) }

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
