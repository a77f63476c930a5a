package router

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// stuckPeer is a fakePeer whose Close blocks, as a real peer's does while
// its client reads nothing, until release is closed or, with a timeout,
// that much time has passed (the outbox's close timeout). Each first Close
// reports on closing when it starts waiting; later ones wait for it.
type stuckPeer struct {
	*fakePeer
	closing chan<- *stuckPeer
	release <-chan struct{}
	timeout time.Duration // 0: none
	first   sync.Once
}

func (p *stuckPeer) Close() error {
	first := false
	p.first.Do(func() { first = true })
	if !first {
		<-p.closed
		return nil
	}
	p.closing <- p
	var expired <-chan time.Time
	if p.timeout > 0 {
		expired = time.After(p.timeout)
	}
	select {
	case <-p.release:
	case <-expired:
	}
	return p.fakePeer.Close()
}

// stuckClients joins n sessions to realm over stuck peers; each peer's
// first Close sends it on the returned channel (buffered for all).
func stuckClients(t *testing.T, g *Gate, realm wamp.URI, n int, release <-chan struct{}, timeout time.Duration) ([]*client, <-chan *stuckPeer) {
	closing := make(chan *stuckPeer, n)
	cs := make([]*client, n)
	for i := range cs {
		p := &stuckPeer{fakePeer: newFakePeer(16), closing: closing, release: release, timeout: timeout}
		cs[i] = attachAs(t, g, p.fakePeer, p)
		cs[i].hello(realm, nil)
	}
	return cs, closing
}

// allClosing waits until n peers are in their Close at once: with closes
// one after another, the second never starts while the first waits for
// release, and the synctest bubble reports the deadlock.
func allClosing(t *testing.T, closing <-chan *stuckPeer, n int) {
	t.Helper()
	for range n {
		<-closing
	}
}

func TestKillByAuthRoleDoesNotWaitForCloses(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		g := mixedGate(r)
		caller := join(t, g, "realm1", nil)
		release := make(chan struct{})
		victims, closing := stuckClients(t, g, "realm1", 5, release, 0)

		// The RESULT comes while every victim's Close is still blocked.
		killed := caller.result("wamp.session.kill_by_authrole", wamp.List{"anonymous"}, nil)
		equal(t, "killed", sortedIDs(killed), ids(victims...))
		allClosing(t, closing, len(victims))
		close(release)
		for _, c := range victims {
			equal(t, "GOODBYE reason", expect[*wamp.Goodbye](c).Reason, wamp.ErrKilled)
			c.waitDone()
		}
		equal(t, "survivors", caller.result("wamp.session.count", nil, nil), 1)
	})
}

func TestSessionKillDoesNotWaitForClose(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		caller := join(t, r.Gate(), "realm1", nil)
		release := make(chan struct{})
		victims, closing := stuckClients(t, r.Gate(), "realm1", 1, release, 0)
		equal(t, "kill", caller.result("wamp.session.kill", wamp.List{uint64(victims[0].id)}, nil), nil)
		allClosing(t, closing, 1)
		close(release)
		expect[*wamp.Goodbye](victims[0])
		victims[0].waitDone()
	})
}

// TestShutdownClosesConcurrently: five sessions whose peers take long to
// close end within one close, not five in a row, and Shutdown keeps to
// its context's deadline.
func TestShutdownClosesConcurrently(t *testing.T) {
	const closeTimeout = 2 * time.Second
	tests := []struct {
		name    string
		timeout time.Duration // the stuck peers' own close timeout
		// stop stops r; release lets the peers' Closes return.
		stop func(t *testing.T, r *Router, closing <-chan *stuckPeer, release chan struct{})
	}{
		{"Close waits for closes started at once", 0, func(t *testing.T, r *Router, closing <-chan *stuckPeer, release chan struct{}) {
			done := make(chan struct{})
			go func() {
				r.Close()
				close(done)
			}()
			allClosing(t, closing, 5)
			close(release)
			<-done
		}},
		{"Close within one close timeout", closeTimeout, func(t *testing.T, r *Router, _ <-chan *stuckPeer, _ chan struct{}) {
			start := time.Now()
			r.Close()
			if d := time.Since(start); d != closeTimeout {
				t.Errorf("Close took %v, want one close timeout (%v)", d, closeTimeout)
			}
		}},
		{"Shutdown returns at its deadline", 0, func(t *testing.T, r *Router, closing <-chan *stuckPeer, release chan struct{}) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if err := r.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Shutdown = %v, want DeadlineExceeded", err)
			}
			allClosing(t, closing, 5)
			close(release)
			r.Close() // waits for the closes still running
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				release := make(chan struct{})
				cs, closing := stuckClients(t, r.Gate(), "realm1", 5, release, tt.timeout)
				tt.stop(t, r, closing, release)
				if n := r.Stats().Sessions; n != 0 {
					t.Errorf("%d sessions still attached after the router stopped", n)
				}
				for _, c := range cs {
					equal(t, "GOODBYE reason", expect[*wamp.Goodbye](c).Reason, wamp.ErrSystemShutdown)
					c.waitDone()
				}
			})
		})
	}
}

func TestRemoveRealmClosesConcurrently(t *testing.T) {
	bubble(t, Options{Realms: []RealmOptions{{Name: "realm1"}, {Name: "realm2"}}}, func(t *testing.T, r *Router) {
		other := join(t, r.Gate(), "realm1", nil)
		release := make(chan struct{})
		cs, closing := stuckClients(t, r.Gate(), "realm2", 5, release, 0)
		r.RemoveRealm("realm2") // returns with every Close still blocked
		allClosing(t, closing, len(cs))
		close(release)
		for _, c := range cs {
			equal(t, "GOODBYE reason", expect[*wamp.Goodbye](c).Reason, wamp.ErrCloseRealm)
			c.waitDone()
		}
		other.quiet()
	})
}
