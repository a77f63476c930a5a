package router

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/junction-wamp/junction/wamp"
)

// parkingPeer is a fakePeer that can park (wamp.Parker): the test sends
// wamp.ErrIdle (as an error on in) to make RecvOrIdle report an idle
// connection; Park hands the resume function to the test, which calls it
// as the transport's poller would.
type parkingPeer struct {
	*nowPeer
	resumes chan func()
	ended   atomic.Int32
}

var (
	_ wamp.Parker    = (*parkingPeer)(nil)
	_ wamp.NowSender = (*parkingPeer)(nil)
)

// nowPeer is a fakePeer that the router can write to at once
// (wamp.NowSender), recording what it sent so.
type nowPeer struct {
	*fakePeer
	mu  sync.Mutex
	now []wamp.MessageType // what came through SendNow
}

var _ wamp.NowSender = (*nowPeer)(nil)

func (p *nowPeer) SendNow(m wamp.Message) error {
	p.mu.Lock()
	p.now = append(p.now, wamp.Unwrap(m).Type())
	p.mu.Unlock()
	return p.Send(m)
}

// sentNow returns and forgets the types sent with SendNow.
func (p *nowPeer) sentNow() []wamp.MessageType {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now
	p.now = nil
	return now
}

func newParkingPeer() *parkingPeer {
	return &parkingPeer{nowPeer: &nowPeer{fakePeer: newFakePeer(256)}, resumes: make(chan func(), 1)}
}

func (p *parkingPeer) RecvOrIdle() (wamp.Message, error) { return p.Recv() }

func (p *parkingPeer) Park(resume func()) bool {
	select {
	case <-p.closed:
		return false
	default:
	}
	p.resumes <- resume
	return true
}

func (p *parkingPeer) Buffered() bool { return len(p.in) > 0 }

func (p *parkingPeer) Ended() { p.ended.Add(1) }

// TestParkedSession: a session whose peer parks frees Attach's goroutine
// (Attach returns as soon as it joined, its client having sent nothing
// more) and goes on when resumed: it handles its messages, in
// order, parks again, and when it ends (GOODBYE) it cleans up and calls
// Ended once.
func TestParkedSession(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		p := newParkingPeer()
		c := attachAs(t, r.Gate(), p.fakePeer, p)
		c.hello("realm1", nil)
		c.waitDone() // Attach returned: the session parked once joined
		for range 2 {
			resume := <-p.resumes
			c.send(&wamp.Subscribe{Request: c.nextReq(), Options: wamp.Dict{}, Topic: "com.a"})
			c.send(&wamp.Subscribe{Request: c.nextReq(), Options: wamp.Dict{}, Topic: "com.b"})
			c.send(wamp.ErrIdle)
			go resume()
			for range 2 {
				if s := expect[*wamp.Subscribed](c); s.Request != c.req-1 && s.Request != c.req {
					t.Fatalf("SUBSCRIBED %d", s.Request)
				}
			}
		}
		if _, n := r.Sessions("realm1", 0, 10); n != 1 {
			t.Fatalf("%d sessions while parked, want 1", n)
		}
		resume := <-p.resumes
		c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
		go resume()
		expect[*wamp.Goodbye](c)
		r.Close()       // returns once the session is untracked
		synctest.Wait() // and Ended, after that, has run
		if n := p.ended.Load(); n != 1 {
			t.Fatalf("Ended called %d times, want once", n)
		}
		if _, n := r.Sessions("realm1", 0, 10); n != 0 {
			t.Fatalf("%d sessions after GOODBYE", n)
		}
	})
}

// TestJoinedBurstNotParked: a session whose client sent more right after
// its HELLO does not park once joined: it handles what waits first, and
// parks when its peer reports it idle.
func TestJoinedBurstNotParked(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		p := newParkingPeer()
		c := attachAs(t, r.Gate(), p.fakePeer, p)
		c.send(&wamp.Hello{Realm: "realm1", Details: clientRoles()})
		c.send(&wamp.Subscribe{Request: 1, Options: wamp.Dict{}, Topic: "com.a"})
		expect[*wamp.Welcome](c)
		expect[*wamp.Subscribed](c)
		synctest.Wait()
		select {
		case <-p.resumes:
			t.Fatal("parked with a message waiting")
		default:
		}
		c.send(wamp.ErrIdle)
		c.waitDone() // parked now
		resume := <-p.resumes
		c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
		go resume()
		expect[*wamp.Goodbye](c)
	})
}

// TestParkedSessionShutdown: Router.Close ends a parked session: the
// peer's Close resumes it (as a real peer's does), and it cleans up.
func TestParkedSessionShutdown(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		p := newParkingPeer()
		c := attachAs(t, r.Gate(), p.fakePeer, p)
		c.hello("realm1", nil)
		c.waitDone()
		resume := <-p.resumes
		go func() {
			<-p.closed // the router closes the peer
			resume()
		}()
		r.Close()
		synctest.Wait()
		if m := expect[*wamp.Goodbye](c); m.Reason != wamp.ErrSystemShutdown {
			t.Fatalf("GOODBYE %s", m.Reason)
		}
		if n := p.ended.Load(); n != 1 {
			t.Fatalf("Ended called %d times, want once", n)
		}
	})
}

// TestSendNowAfterBurst: the router writes at once (SendNow) only what it
// sends once its client's burst is over, and never a fan-out's shared
// EVENT: the answers to the first messages of a burst, and every EVENT,
// go through Send, to be batched.
func TestSendNowAfterBurst(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		p := newParkingPeer()
		c := attachAs(t, r.Gate(), p.fakePeer, p)
		c.hello("realm1", nil)
		c.waitDone()
		resume := <-p.resumes
		p.sentNow()
		// A burst: three messages read together.
		c.send(&wamp.Subscribe{Request: 1, Options: wamp.Dict{}, Topic: "com.a"})
		c.send(&wamp.Subscribe{Request: 2, Options: wamp.Dict{}, Topic: "com.b"})
		c.send(&wamp.Publish{Request: 3, Options: wamp.Dict{"acknowledge": true, "exclude_me": false}, Topic: "com.a"})
		go resume()
		expect[*wamp.Subscribed](c)
		expect[*wamp.Subscribed](c)
		expect[*wamp.Event](c)
		expect[*wamp.Published](c)
		synctest.Wait()
		if now := p.sentNow(); !slices.Equal(now, []wamp.MessageType{wamp.TypePublished}) {
			t.Fatalf("sent with SendNow: %v, want the PUBLISHED that ends the burst only", now)
		}
		c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
		expect[*wamp.Goodbye](c)
	})
}

// TestInvocationsOfConcurrentCalls: for a caller whose peer cannot tell
// that more of its messages wait (not a wamp.Parker: an in-process
// session, as the HTTP Caller's), the INVOCATION of a lone call is
// written at once (SendNow), and that of a call made while another is in
// flight goes through Send, to be batched.
func TestInvocationsOfConcurrentCalls(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		p := &nowPeer{fakePeer: newFakePeer(256)}
		callee := attachAs(t, r.Gate(), p.fakePeer, p)
		callee.hello("realm1", nil)
		callee.register("com.echo", nil)
		checkInvocationBatches(t, p, callee, join(t, r.Gate(), "realm1", nil))
	})
}

// checkInvocationBatches checks that caller's INVOCATIONs to callee (on
// p) go out with SendNow for a lone call and with Send for a call made
// while another is in flight.
func checkInvocationBatches(t *testing.T, p *nowPeer, callee, caller *client) {
	t.Helper()
	synctest.Wait()
	p.sentNow()
	invoke := func(want []wamp.MessageType) *wamp.Invocation {
		t.Helper()
		caller.call("com.echo", nil)
		inv := expect[*wamp.Invocation](callee)
		synctest.Wait()
		if now := p.sentNow(); !slices.Equal(now, want) {
			t.Fatalf("sent with SendNow: %v, want %v", now, want)
		}
		return inv
	}
	lone := []wamp.MessageType{wamp.TypeInvocation}
	first := invoke(lone)
	second := invoke(nil) // the first still in flight
	for _, inv := range []*wamp.Invocation{first, second} {
		callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
		expect[*wamp.Result](caller)
	}
	synctest.Wait()
	invoke(lone) // alone again
}

// localParker is a parkingPeer in the router's process, as
// transport/local's ParkingPeer (the HTTP bridge's sessions).
type localParker struct{ *parkingPeer }

func (localParker) Info() wamp.PeerInfo { return wamp.PeerInfo{Transport: "local"} }

// TestTellsBursts: only a socket's Parker can tell that more of its
// client's messages wait; an in-process peer, parking or not, cannot, so
// that its concurrent calls count as a burst (sendInvocation).
func TestTellsBursts(t *testing.T) {
	for _, c := range []struct {
		name string
		p    wamp.Peer
		want bool
	}{
		{"not a Parker", newFakePeer(1), false},
		{"a socket's Parker", newParkingPeer(), true},
		{"an in-process Parker", localParker{newParkingPeer()}, false},
	} {
		if got := tellsBursts(c.p); got != c.want {
			t.Errorf("%s: tellsBursts = %v, want %v", c.name, got, c.want)
		}
	}
}
