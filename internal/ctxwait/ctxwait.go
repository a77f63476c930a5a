// Package ctxwait waits for a while unless a context ends first: the
// pause between the attempts of a retry loop (a client's reconnection, a
// forwarder's redelivery, a restart's backoff). A leaf.
package ctxwait

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends; it reports whether d passed (false:
// ctx ended first, or had ended).
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
