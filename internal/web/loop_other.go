//go:build !linux

package web

import (
	"fmt"

	"github.com/junction-wamp/junction/internal/web/h1"
)

// loopEngineOf refuses EngineLoop: its event loops run on Linux's epoll
// only.
func loopEngineOf(*h1.Server, ServerOptions) (engine, error) {
	return nil, fmt.Errorf("%w: engine %q: Linux only", ErrBadOption, EngineLoop)
}

// DefaultLoops is the loop engine's default number of loops; there is
// none here.
func DefaultLoops() int { return 0 }

// engineLoops is 0: there is no loop engine here.
func engineLoops(engine) int { return 0 }
