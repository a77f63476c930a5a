package router

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// flushPeer is a fakePeer with the afterFlusher capability: the test says
// when what was queued has been "written" (flush).
type flushPeer struct {
	*fakePeer
	mu      sync.Mutex
	pending []func()
}

func (p *flushPeer) AfterFlush(fn func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending = append(p.pending, fn)
}

// flush runs the callbacks waiting for the frames queued so far, on the
// test's goroutine as a writer goroutine would.
func (p *flushPeer) flush() {
	p.mu.Lock()
	fns := p.pending
	p.pending = nil
	p.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

var _ afterFlusher = (*flushPeer)(nil)

// TestRetainedAfterSubscribedIsWritten: the retained event is sent
// retainedGrace after SUBSCRIBED has been written, and not at all if the
// session has unsubscribed by then.
func TestRetainedAfterSubscribedIsWritten(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		pub := join(t, r.Gate(), "realm1", nil)
		pub.publish("com.r", wamp.Dict{"retain": true}, "kept")
		synctest.Wait()

		fp := &flushPeer{fakePeer: newFakePeer(16)}
		c := attachAs(t, r.Gate(), fp.fakePeer, fp)
		c.hello("realm1", nil)
		id := c.subscribe("com.r", wamp.Dict{"get_retained": true})
		c.quiet() // SUBSCRIBED is not written yet: no EVENT
		fp.flush()
		c.quiet() // nor until retainedGrace has passed
		time.Sleep(retainedGrace)
		ev := expect[*wamp.Event](c)
		if ev.Subscription != id || ev.Details["retained"] != true || ev.Args[0] != "kept" {
			t.Errorf("retained EVENT %+v", ev)
		}

		c.send(&wamp.Unsubscribe{Request: c.nextReq(), Subscription: id})
		expect[*wamp.Unsubscribed](c)
		id = c.subscribe("com.r", wamp.Dict{"get_retained": true})
		c.send(&wamp.Unsubscribe{Request: c.nextReq(), Subscription: id})
		expect[*wamp.Unsubscribed](c)
		fp.flush() // SUBSCRIBED written after the client unsubscribed
		time.Sleep(retainedGrace)
		c.quiet()
	})
}

// TestRetainedAtOnceForInternal: a session of the node's own gets the
// retained events right after SUBSCRIBED, whatever its peer can tell.
func TestRetainedAtOnceForInternal(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		pub := join(t, r.Gate(), "realm1", nil)
		pub.publish("com.r", wamp.Dict{"retain": true}, "kept")
		synctest.Wait()

		fp := &flushPeer{fakePeer: newFakePeer(16)}
		c := attachAs(t, r.NewGate(GateOptions{Internal: true}), fp.fakePeer, fp)
		c.hello("realm1", nil)
		id := c.subscribe("com.r", wamp.Dict{"get_retained": true})
		ev := expect[*wamp.Event](c) // nothing flushed, no time passed
		if ev.Subscription != id || ev.Details["retained"] != true || ev.Args[0] != "kept" {
			t.Errorf("retained EVENT %+v", ev)
		}
	})
}
