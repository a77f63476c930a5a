package rest

import (
	"context"
	"sync"
)

// inflight counts work in progress and lets Stop wait for it; unlike a
// WaitGroup, begin may race with the wait (it then refuses). Safe for
// concurrent use.
type inflight struct {
	mu     sync.Mutex // guards the fields below
	n      int
	closed bool
	idle   chan struct{} // closed when n reaches 0 after close
}

// begin counts one more piece of work; false once closed.
func (f *inflight) begin() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.n++
	return true
}

func (f *inflight) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
}

// wait refuses new work and waits for the work in progress; see waitDone.
func (f *inflight) wait(ctx context.Context, cancel context.CancelFunc) error {
	f.mu.Lock()
	f.closed = true
	idle := make(chan struct{})
	if f.n == 0 {
		close(idle)
	} else {
		f.idle = idle
	}
	f.mu.Unlock()
	return waitDone(ctx, idle, cancel)
}

// waitDone waits for done. When ctx ends first it calls cancel, waits for
// done anyway (canceled work ends promptly) and returns ctx's error.
func waitDone(ctx context.Context, done <-chan struct{}, cancel context.CancelFunc) error {
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		cancel()
		<-done
		return ctx.Err()
	}
}
