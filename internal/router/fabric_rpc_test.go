package router

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

func TestFabricCall(t *testing.T) {
	linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
		callee := join(t, r1.Gate(), "realm1", nil)
		reg := callee.register("com.add", nil)
		if want := c.nodes[0].RegistrationID("com.add", wamp.MatchExact); reg != want {
			t.Errorf("registration ID %d, want the cluster's %d", reg, want)
		}
		caller := join(t, r2.Gate(), "realm1", nil)
		req := caller.call("com.add", wamp.Dict{"disclose_me": true}, 2, 3)
		inv := expect[*wamp.Invocation](callee)
		if inv.Registration != reg || !slices.Equal(inv.Args, wamp.List{2, 3}) || inv.Details[wamp.OptCaller] != uint64(caller.id) {
			t.Errorf("INVOCATION %+v", inv)
		}
		callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}, Args: wamp.List{5}, Kwargs: wamp.ObjectOf(wamp.Dict{"k": 1})})
		res := expect[*wamp.Result](caller)
		if res.Request != req || !slices.Equal(res.Args, wamp.List{5}) || res.Kwargs.Dict()["k"] != 1 || res.Details[wamp.OptProgress] != nil {
			t.Errorf("RESULT %+v", res)
		}

		req = caller.call("com.add", nil)
		inv = expect[*wamp.Invocation](callee)
		callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: inv.Request, Details: wamp.Dict{}, Error: "com.err", Args: wamp.List{"bad"}})
		e := caller.expectError("com.err")
		if e.Request != req || e.RequestType != wamp.TypeCall || !slices.Equal(e.Args, wamp.List{"bad"}) {
			t.Errorf("ERROR %+v", e)
		}
		callee.quiet()
		caller.quiet()
	})
}

func TestFabricRegister(t *testing.T) {
	linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
		a := join(t, r1.Gate(), "realm1", nil)
		b := join(t, r2.Gate(), "realm1", nil)
		reg := a.register("com.p", nil)
		b.send(&wamp.Register{Request: b.nextReq(), Options: wamp.Dict{}, Procedure: "com.p"})
		b.expectError(wamp.ErrProcedureAlreadyExists)
		b.send(&wamp.Register{Request: b.nextReq(), Options: wamp.Dict{"invoke": "roundrobin"}, Procedure: "com.p"})
		b.expectError(wamp.ErrProcedureAlreadyExists)

		a.send(&wamp.Unregister{Request: a.nextReq(), Registration: reg})
		expect[*wamp.Unregistered](a)
		b.call("com.p", nil)
		b.expectError(wamp.ErrNoSuchProcedure)
		if got := b.register("com.p", nil); got != reg {
			t.Errorf("registration ID %d on the other node, want %d", got, reg)
		}
		a.call("com.p", nil)
		expect[*wamp.Invocation](b)
	})
}

// TestFabricStaleRemote: a node whose mirror still shows a single
// registration that the table no longer has lets its session register
// (the table decides).
func TestFabricStaleRemote(t *testing.T) {
	linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
		a := join(t, r1.Gate(), "realm1", nil)
		b := join(t, r2.Gate(), "realm1", nil)
		a.register("com.p", nil)
		c.mu.Lock()
		delete(c.table, fakeKey{"com.p", wamp.MatchExact}) // not mirrored yet
		c.mu.Unlock()
		b.register("com.p", wamp.Dict{"invoke": "last"})
		b.call("com.p", nil)
		expect[*wamp.Invocation](b)
	})
}

func TestFabricPolicies(t *testing.T) {
	tests := []struct {
		policy string
		want   []int // the callee of each call: 0 and 2 on node 1, 1 on node 2
	}{
		{wamp.InvokeRoundRobin, []int{0, 1, 2, 0, 1, 2}},
		{wamp.InvokeFirst, []int{0, 0, 0}},
		{wamp.InvokeLast, []int{2, 2, 2}},
		{wamp.InvokeRandom, nil},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
				opts := wamp.Dict{"invoke": tt.policy}
				callees := []*client{join(t, r1.Gate(), "realm1", nil), join(t, r2.Gate(), "realm1", nil), join(t, r1.Gate(), "realm1", nil)}
				for _, ce := range callees {
					ce.register("com.p", opts)
				}
				for _, r := range []*Router{r1, r2} {
					caller := join(t, r.Gate(), "realm1", nil)
					for i := range 12 {
						caller.call("com.p", nil)
						synctest.Wait()
						got := yieldAny(t, callees)
						expect[*wamp.Result](caller)
						if tt.want != nil && got != tt.want[i%len(tt.want)] {
							t.Fatalf("call %d from %v went to callee %d, want %d", i, r, got, tt.want[i%len(tt.want)])
						}
					}
				}
			})
		})
	}
}

// yieldAny finds which of callees got an INVOCATION, yields to it and
// returns its index.
func yieldAny(t *testing.T, callees []*client) int {
	t.Helper()
	for i, ce := range callees {
		select {
		case m := <-ce.p.out:
			inv := wamp.Unwrap(m).(*wamp.Invocation)
			ce.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
			synctest.Wait()
			return i
		default:
		}
	}
	t.Fatal("no callee got the INVOCATION")
	return -1
}

func TestFabricProgress(t *testing.T) {
	linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
		callee := join(t, r1.Gate(), "realm1", nil)
		callee.register("com.p", nil)
		caller := join(t, r2.Gate(), "realm1", nil)
		caller.call("com.p", wamp.Dict{"receive_progress": true})
		inv := expect[*wamp.Invocation](callee)
		if inv.Details[wamp.OptReceiveProgress] != true {
			t.Errorf("INVOCATION details %v", inv.Details)
		}
		for i := range 3 {
			callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{"progress": i < 2}, Args: wamp.List{i}})
		}
		for i := range 3 {
			res := expect[*wamp.Result](caller)
			var want any
			if i < 2 {
				want = true
			}
			if res.Details[wamp.OptProgress] != want || !slices.Equal(res.Args, wamp.List{i}) {
				t.Errorf("RESULT %d %+v", i, res)
			}
		}
		// Without receive_progress, progressive results are dropped.
		caller.call("com.p", nil)
		inv = expect[*wamp.Invocation](callee)
		callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{"progress": true}})
		callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}, Args: wamp.List{"final"}})
		if res := expect[*wamp.Result](caller); !slices.Equal(res.Args, wamp.List{"final"}) {
			t.Errorf("RESULT %+v", res)
		}
	})
}

func TestFabricTimeout(t *testing.T) {
	linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
		callee := join(t, r1.Gate(), "realm1", nil)
		callee.register("com.slow", nil)
		caller := join(t, r2.Gate(), "realm1", nil)
		caller.call("com.slow", wamp.Dict{"timeout": 500})
		inv := expect[*wamp.Invocation](callee)
		time.Sleep(time.Second) // the bubble's clock
		caller.expectError(wamp.ErrTimeout)
		it := expect[*wamp.Interrupt](callee)
		if it.Request != inv.Request || it.Options[wamp.OptMode] != wamp.CancelKillNoWait || it.Options[wamp.OptReason] != string(wamp.ErrTimeout) {
			t.Errorf("INTERRUPT %+v", it)
		}
		callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: inv.Request, Details: wamp.Dict{}, Error: wamp.ErrCanceled})
		caller.quiet()
	})
}

func TestFabricCancel(t *testing.T) {
	tests := []struct {
		mode      string
		interrupt bool // the callee gets INTERRUPT
		wait      bool // the caller's ERROR waits for the callee's answer
	}{
		{wamp.CancelSkip, false, false},
		{wamp.CancelKill, true, true},
		{wamp.CancelKillNoWait, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
				callee := join(t, r1.Gate(), "realm1", nil)
				callee.register("com.p", nil)
				caller := join(t, r2.Gate(), "realm1", nil)
				req := caller.call("com.p", nil)
				inv := expect[*wamp.Invocation](callee)
				caller.send(&wamp.Cancel{Request: req, Options: wamp.Dict{"mode": tt.mode}})
				synctest.Wait()
				if tt.interrupt {
					if it := expect[*wamp.Interrupt](callee); it.Request != inv.Request || it.Options[wamp.OptMode] != tt.mode {
						t.Errorf("INTERRUPT %+v", it)
					}
				}
				callee.quiet()
				if tt.wait {
					caller.quiet()
					callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: inv.Request, Details: wamp.Dict{}, Error: wamp.ErrCanceled})
				}
				caller.expectError(wamp.ErrCanceled)
				// A late answer goes nowhere.
				callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
				caller.quiet()
			})
		})
	}
}

func TestFabricCalleeLost(t *testing.T) {
	t.Run("node", func(t *testing.T) {
		linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
			callee := join(t, r1.Gate(), "realm1", nil)
			callee.register("com.p", nil)
			caller := join(t, r2.Gate(), "realm1", nil)
			// r2's callee serves r1's caller too: that call ends with r1.
			callee2 := join(t, r2.Gate(), "realm1", nil)
			callee2.register("com.q", nil)
			caller1 := join(t, r1.Gate(), "realm1", nil)
			caller1.call("com.q", nil)
			inv2 := expect[*wamp.Invocation](callee2)

			caller.call("com.p", nil)
			expect[*wamp.Invocation](callee)
			c.kill(c.nodes[0])
			caller.expectError(wamp.ErrCanceled)
			it := expect[*wamp.Interrupt](callee2)
			if it.Request != inv2.Request || it.Options[wamp.OptMode] != wamp.CancelKillNoWait {
				t.Errorf("INTERRUPT %+v", it)
			}
			caller.call("com.p", nil)
			caller.expectError(wamp.ErrNoSuchProcedure)
			if st := r2.realm("realm1").dealer; len(st.remote.nodes) != 0 {
				t.Errorf("remote sessions of a lost node kept: %v", st.remote.nodes)
			}
		})
	})
	t.Run("session", func(t *testing.T) {
		linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
			callee := join(t, r1.Gate(), "realm1", nil)
			callee.register("com.p", nil)
			caller := join(t, r2.Gate(), "realm1", nil)
			caller.call("com.p", nil)
			expect[*wamp.Invocation](callee)
			callee.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
			caller.expectError(wamp.ErrCanceled)
			synctest.Wait()
			caller.call("com.p", nil)
			caller.expectError(wamp.ErrNoSuchProcedure)
			for _, r := range []*Router{r1, r2} {
				if d := r.realm("realm1").dealer; len(d.remote.nodes) != 0 || len(d.byID) != 0 {
					t.Errorf("remote sessions %v, registrations %v kept", d.remote.nodes, d.byID)
				}
			}
		})
	})
}

// TestFabricUnreachable: an INVOCATION that cannot be sent to the
// callee's node ends its call at once.
func TestFabricUnreachable(t *testing.T) {
	linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
		callee := join(t, r1.Gate(), "realm1", nil)
		callee.register("com.p", nil)
		caller := join(t, r2.Gate(), "realm1", nil)
		c.mu.Lock()
		c.cut = true
		c.mu.Unlock()
		req := caller.call("com.p", wamp.Dict{"timeout": 60000})
		if e := caller.expectError(wamp.ErrCanceled); e.Request != req {
			t.Errorf("ERROR %+v", e)
		}
		callee.quiet()
		if d := r2.realm("realm1").dealer; d.inFlight != 0 {
			t.Errorf("%d calls in flight", d.inFlight)
		}
	})
}

// TestFabricRemoteSessionsHidden: a remote callee counts as a callee of
// its registration, not as a session of the realm.
func TestFabricRemoteSessionsHidden(t *testing.T) {
	linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
		callee := join(t, r1.Gate(), "realm1", nil)
		reg := callee.register("com.p", wamp.Dict{"invoke": "roundrobin"})
		other := join(t, r2.Gate(), "realm1", nil)
		other.register("com.p", wamp.Dict{"invoke": "roundrobin"})
		other.call("wamp.session.count", nil)
		if res := expect[*wamp.Result](other); !slices.Equal(res.Args, wamp.List{1}) {
			t.Errorf("session count %v, want 1 (the remote callee is no session here)", res.Args)
		}
		other.call("wamp.registration.list_callees", nil, uint64(reg))
		res := expect[*wamp.Result](other)
		ids, _ := res.Args[0].(wamp.List)
		if len(ids) != 2 || !slices.Contains(ids, any(uint64(callee.id))) || !slices.Contains(ids, any(uint64(other.id))) {
			t.Errorf("callees %v, want %d and %d", res.Args, callee.id, other.id)
		}
	})
}

// TestFabricInvocationsBatched: the calls of another node to a local
// callee go out in batches while several are in flight (Send), a lone
// call's INVOCATION at once (SendNow), as an in-process caller's
// (TestInvocationsOfConcurrentCalls).
func TestFabricInvocationsBatched(t *testing.T) {
	linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
		p := &nowPeer{fakePeer: newFakePeer(256)}
		callee := attachAs(t, r1.Gate(), p.fakePeer, p)
		callee.hello("realm1", nil)
		callee.register("com.echo", nil)
		checkInvocationBatches(t, p, callee, join(t, r2.Gate(), "realm1", nil))
	})
}

// TestFabricRevokedOnUpdate: a registration that a realm update revokes
// leaves the cluster's table too (the other nodes stop routing calls to
// it), whether its session is told (UNREGISTERED) or closed; one still
// allowed stays.
func TestFabricRevokedOnUpdate(t *testing.T) {
	linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
		told := join(t, r1.Gate(), "realm1", revokingRoles())
		told.register("com.a.told", nil)
		kept := told.register("com.b.kept", nil)
		untold := join(t, r1.Gate(), "realm1", nil)
		untold.register("com.a.untold", nil)
		caller := join(t, r2.Gate(), "realm1", nil)

		if _, err := r1.UpdateRealm("realm1", RealmUpdate{Authorizer: allowPrefix("com.b.")}); err != nil {
			t.Fatal(err)
		}
		expect[*wamp.Unregistered](told)
		synctest.Wait() // the untold session's close
		c.mu.Lock()
		var left []wamp.URI
		for k := range c.table {
			left = append(left, k.procedure)
		}
		c.mu.Unlock()
		slices.Sort(left)
		if !slices.Equal(left, []wamp.URI{"com.b.kept"}) {
			t.Errorf("the table holds %v, want only com.b.kept", left)
		}
		for _, p := range []wamp.URI{"com.a.told", "com.a.untold"} {
			caller.call(p, nil)
			caller.expectError(wamp.ErrNoSuchProcedure)
		}
		caller.call("com.b.kept", nil)
		if inv := expect[*wamp.Invocation](told); inv.Registration != kept {
			t.Errorf("INVOCATION %+v, want one of registration %d", inv, kept)
		}
	})
}
