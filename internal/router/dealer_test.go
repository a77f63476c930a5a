package router

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// rpc is a caller and a callee on realm1, the callee registered for proc.
func rpc(t *testing.T, r *Router, proc wamp.URI, opts wamp.Dict) (caller, callee *client, reg wamp.ID) {
	callee = join(t, r.Gate(), "realm1", nil)
	reg = callee.register(proc, opts)
	caller = join(t, r.Gate(), "realm1", nil)
	return caller, callee, reg
}

func TestCallYield(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		caller, callee, reg := rpc(t, r, "com.add", nil)
		req := caller.call("com.add", nil, 2, 3)
		inv := expect[*wamp.Invocation](callee)
		if inv.Registration != reg || !slices.Equal(inv.Args, wamp.List{2, 3}) || len(inv.Details) != 0 {
			t.Errorf("INVOCATION %+v", inv)
		}
		callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}, Args: wamp.List{5}, Kwargs: wamp.ObjectOf(wamp.Dict{"k": 1})})
		res := expect[*wamp.Result](caller)
		if res.Request != req || !slices.Equal(res.Args, wamp.List{5}) || res.Kwargs.Dict()["k"] != 1 {
			t.Errorf("RESULT %+v", res)
		}
		// A second YIELD for the same invocation is ignored.
		callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
		callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: 12345, Details: wamp.Dict{}, Error: "x.y"})
		caller.quiet()
		callee.quiet()
		// Invocation request IDs are sequential for the callee.
		caller.call("com.add", nil)
		if inv2 := expect[*wamp.Invocation](callee); inv2.Request != inv.Request+1 {
			t.Errorf("INVOCATION request %d after %d", inv2.Request, inv.Request)
		}
	})
}

func TestCallErrors(t *testing.T) {
	tests := []struct {
		name string
		proc wamp.URI
		want wamp.URI
	}{
		{"no such procedure", "com.none", wamp.ErrNoSuchProcedure},
		{"invalid uri", "com. bad", wamp.ErrInvalidURI},
		{"not authorized", "private.p", wamp.ErrNotAuthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: denyPrivate}}}, func(t *testing.T, r *Router) {
				c := join(t, r.Gate(), "realm1", nil)
				req := c.call(tt.proc, nil)
				if e := c.expectError(tt.want); e.RequestType != wamp.TypeCall || e.Request != req {
					t.Errorf("ERROR %+v", e)
				}
			})
		})
	}
}

func TestRegisterErrors(t *testing.T) {
	tests := []struct {
		name        string
		first, then wamp.Dict
		proc        wamp.URI
		want        wamp.URI
	}{
		{"single twice", nil, nil, "com.p", wamp.ErrProcedureAlreadyExists},
		{"single then shared", nil, wamp.Dict{"invoke": "roundrobin"}, "com.p", wamp.ErrProcedureAlreadyExists},
		{"policy mismatch", wamp.Dict{"invoke": "first"}, wamp.Dict{"invoke": "last"}, "com.p", wamp.ErrProcedureAlreadyExists},
		{"unknown policy", nil, wamp.Dict{"invoke": "fastest"}, "com.q", wamp.ErrInvalidArgument},
		{"unknown match", nil, wamp.Dict{"match": "glob"}, "com.q", wamp.ErrInvalidArgument},
		{"invalid uri", nil, nil, "com..q", wamp.ErrInvalidURI},
		{"restricted uri", nil, nil, "wamp.session.count", wamp.ErrInvalidURI},
		{"not authorized", nil, nil, "private.q", wamp.ErrNotAuthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: denyPrivate}}}, func(t *testing.T, r *Router) {
				a := join(t, r.Gate(), "realm1", nil)
				a.register("com.p", tt.first)
				b := join(t, r.Gate(), "realm1", nil)
				b.send(&wamp.Register{Request: 3, Options: orEmpty(tt.then), Procedure: tt.proc})
				if e := b.expectError(tt.want); e.RequestType != wamp.TypeRegister || e.Request != 3 {
					t.Errorf("ERROR %+v", e)
				}
			})
		})
	}
}

func TestUnregister(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		caller, callee, reg := rpc(t, r, "com.p", nil)
		callee.send(&wamp.Unregister{Request: 50, Registration: reg})
		if u := expect[*wamp.Unregistered](callee); u.Request != 50 {
			t.Errorf("UNREGISTERED %+v", u)
		}
		callee.send(&wamp.Unregister{Request: 51, Registration: reg})
		callee.expectError(wamp.ErrNoSuchRegistration)
		caller.call("com.p", nil)
		caller.expectError(wamp.ErrNoSuchProcedure)
		// The procedure can be registered again.
		caller.register("com.p", nil)
	})
}

func TestInvokePolicies(t *testing.T) {
	tests := []struct {
		policy string
		want   []int // which of callees 0, 1, 2 gets calls 1..4; -1: any
	}{
		{"roundrobin", []int{0, 1, 2, 0}},
		{"first", []int{0, 0, 0, 0}},
		{"last", []int{2, 2, 2, 2}},
		{"random", []int{-1, -1, -1, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				var callees []*client
				var reg wamp.ID
				for i := range 3 {
					c := join(t, r.Gate(), "realm1", nil)
					id := c.register("com.p", wamp.Dict{"invoke": tt.policy})
					if i > 0 && id != reg {
						t.Fatalf("shared registration IDs %d and %d", reg, id)
					}
					reg = id
					callees = append(callees, c)
				}
				caller := join(t, r.Gate(), "realm1", nil)
				for _, want := range tt.want {
					caller.call("com.p", nil)
					synctest.Wait()
					got := -1
					for i, c := range callees {
						select {
						case m := <-c.p.out:
							inv := wamp.Unwrap(m).(*wamp.Invocation)
							got = i
							c.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
						default:
						}
					}
					if got < 0 || want >= 0 && got != want {
						t.Errorf("call went to callee %d, want %d", got, want)
					}
					expect[*wamp.Result](caller)
				}
			})
		})
	}
}

func TestPatternRegistration(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		exact := join(t, r.Gate(), "realm1", nil)
		exact.register("com.a.b", nil)
		prefix := join(t, r.Gate(), "realm1", nil)
		prefix.register("com.a", wamp.Dict{"match": "prefix"})
		wild := join(t, r.Gate(), "realm1", nil)
		wild.register("com..b", wamp.Dict{"match": "wildcard"})
		caller := join(t, r.Gate(), "realm1", nil)

		caller.call("com.a.b", nil)
		inv := expect[*wamp.Invocation](exact)
		if inv.Details["procedure"] != nil {
			t.Errorf("exact INVOCATION details %v", inv.Details)
		}
		caller.call("com.a.c", nil)
		if inv := expect[*wamp.Invocation](prefix); inv.Details["procedure"] != "com.a.c" {
			t.Errorf("prefix INVOCATION details %v", inv.Details)
		}
		caller.call("com.x.b", nil)
		if inv := expect[*wamp.Invocation](wild); inv.Details["procedure"] != "com.x.b" {
			t.Errorf("wildcard INVOCATION details %v", inv.Details)
		}
	})
}

func TestProgressiveResults(t *testing.T) {
	for _, asked := range []bool{true, false} {
		t.Run(map[bool]string{true: "asked", false: "not asked"}[asked], func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				caller, callee, _ := rpc(t, r, "com.p", nil)
				caller.call("com.p", wamp.Dict{"receive_progress": asked})
				inv := expect[*wamp.Invocation](callee)
				if (inv.Details["receive_progress"] == true) != asked {
					t.Errorf("INVOCATION details %v", inv.Details)
				}
				for i := range 2 {
					callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{"progress": true}, Args: wamp.List{i}})
				}
				callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}, Args: wamp.List{"done"}})
				if asked {
					for i := range 2 {
						res := expect[*wamp.Result](caller)
						if res.Details["progress"] != true || res.Args[0] != i {
							t.Errorf("progressive RESULT %+v", res)
						}
					}
				}
				if res := expect[*wamp.Result](caller); res.Details["progress"] != nil || res.Args[0] != "done" {
					t.Errorf("final RESULT %+v", res)
				}
				caller.quiet()
			})
		})
	}
}

func TestCalleeErrorPassedThrough(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		caller, callee, _ := rpc(t, r, "com.p", nil)
		req := caller.call("com.p", nil)
		inv := expect[*wamp.Invocation](callee)
		callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: inv.Request, Details: wamp.Dict{"d": 1},
			Error: "com.err.bad", Args: wamp.List{"why"}, Kwargs: wamp.ObjectOf(wamp.Dict{"code": 7})})
		e := caller.expectError("com.err.bad")
		if e.RequestType != wamp.TypeCall || e.Request != req || e.Args[0] != "why" || e.Kwargs.Dict()["code"] != 7 || e.Details["d"] != 1 {
			t.Errorf("ERROR %+v", e)
		}
	})
}

func TestCallTimeout(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		caller, callee, _ := rpc(t, r, "com.slow", nil)
		start := time.Now()
		req := caller.call("com.slow", wamp.Dict{"timeout": 1500})
		inv := expect[*wamp.Invocation](callee)
		if inv.Details["timeout"] != uint64(1500) {
			t.Errorf("INVOCATION details %v", inv.Details)
		}
		e := caller.expectError(wamp.ErrTimeout)
		if e.Request != req || time.Since(start) != 1500*time.Millisecond {
			t.Errorf("ERROR %+v after %v", e, time.Since(start))
		}
		in := expect[*wamp.Interrupt](callee)
		if in.Request != inv.Request || in.Options["mode"] != "killnowait" {
			t.Errorf("INTERRUPT %+v", in)
		}
		callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
		caller.quiet()

		// A call answered in time is not interrupted later.
		caller.call("com.slow", wamp.Dict{"timeout": 1000})
		inv = expect[*wamp.Invocation](callee)
		callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
		expect[*wamp.Result](caller)
		time.Sleep(2 * time.Second) // fake time, in the bubble: lets the timer's deadline pass
		callee.quiet()
		caller.quiet()
	})
}

func TestCancelModes(t *testing.T) {
	tests := []struct {
		mode          string
		interrupt     bool // callee gets INTERRUPT
		errorAtOnce   bool // caller gets ERROR canceled without the callee
		calleeAnswers bool // the callee answers the INTERRUPT with ERROR canceled
	}{
		{"skip", false, true, false},
		{"kill", true, false, true},
		{"killnowait", true, true, false},
		{"", true, false, true}, // default kill
	}
	for _, tt := range tests {
		t.Run("mode="+tt.mode, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				caller, callee, _ := rpc(t, r, "com.p", nil)
				req := caller.call("com.p", nil)
				inv := expect[*wamp.Invocation](callee)
				opts := wamp.Dict{}
				if tt.mode != "" {
					opts["mode"] = tt.mode
				}
				caller.send(&wamp.Cancel{Request: req, Options: opts})
				if tt.interrupt {
					if in := expect[*wamp.Interrupt](callee); in.Request != inv.Request {
						t.Errorf("INTERRUPT %+v", in)
					}
				}
				if tt.errorAtOnce {
					caller.expectError(wamp.ErrCanceled)
				}
				caller.quiet()
				if tt.calleeAnswers {
					callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: inv.Request, Details: wamp.Dict{}, Error: wamp.ErrCanceled})
					caller.expectError(wamp.ErrCanceled)
				} else {
					callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
				}
				caller.quiet()
				callee.quiet()
			})
		})
	}
}

func TestCalleeLeavesMidCall(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		caller, callee, _ := rpc(t, r, "com.p", nil)
		req := caller.call("com.p", nil)
		expect[*wamp.Invocation](callee)
		callee.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
		expect[*wamp.Goodbye](callee)
		if e := caller.expectError(wamp.ErrCanceled); e.Request != req {
			t.Errorf("ERROR %+v", e)
		}
		caller.call("com.p", nil)
		caller.expectError(wamp.ErrNoSuchProcedure)
	})
}

func TestCallerLeavesMidCall(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		caller, callee, _ := rpc(t, r, "com.p", nil)
		caller.call("com.p", nil)
		inv := expect[*wamp.Invocation](callee)
		caller.p.Close()
		caller.waitDone()
		in := expect[*wamp.Interrupt](callee)
		if in.Request != inv.Request || in.Options["mode"] != "killnowait" {
			t.Errorf("INTERRUPT %+v", in)
		}
		callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
		callee.quiet()
	})
}

func TestCallerDisclosure(t *testing.T) {
	tests := []struct {
		name     string
		proc     wamp.URI
		opts     wamp.Dict
		disclose bool
	}{
		{"not asked", "com.p", nil, false},
		{"disclose_me", "com.p", wamp.Dict{"disclose_me": true}, true},
		{"by permission", "disclosed.p", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: denyPrivate}}}, func(t *testing.T, r *Router) {
				callee := join(t, r.Gate(), "realm1", nil)
				callee.register(tt.proc, nil)
				caller := ticketJoin(t, r.Gate(ticketAuth{role: "user"}), "realm1", "alice")
				caller.call(tt.proc, tt.opts)
				d := expect[*wamp.Invocation](callee).Details
				if !tt.disclose {
					if d["caller"] != nil {
						t.Errorf("details %v", d)
					}
					return
				}
				if d["caller"] != uint64(caller.id) || d["caller_authid"] != "alice" || d["caller_authrole"] != "user" {
					t.Errorf("details %v", d)
				}
			})
		})
	}
}

func TestInternalProcedure(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		rm := r.realm("realm1")
		rm.registerInternal("wamp.session.count", func(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
			rm.mu.RLock()
			defer rm.mu.RUnlock()
			return wamp.List{len(rm.sessions)}, nil, nil
		})
		rm.registerInternal("wamp.session.get", func(*session, *wamp.Call) (wamp.List, wamp.Dict, error) {
			return nil, nil, wamp.Errorf(wamp.ErrNoSuchSession, "no")
		})
		c := join(t, r.Gate(), "realm1", nil)
		c.call("wamp.session.count", nil)
		if res := expect[*wamp.Result](c); res.Args[0] != 1 {
			t.Errorf("RESULT %+v", res)
		}
		c.call("wamp.session.get", nil)
		c.expectError(wamp.ErrNoSuchSession)
	})
}

// TestNoInterruptWithoutCallCanceling: a callee that did not announce
// call_canceling (autobahn-js 22 treats INTERRUPT as a protocol violation)
// is never sent INTERRUPT: its canceled and timed-out calls are skipped.
func TestNoInterruptWithoutCallCanceling(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		callee := join(t, r.Gate(), "realm1", wamp.Dict{})
		callee.send(&wamp.Register{Request: 1, Options: wamp.Dict{}, Procedure: "com.p"})
		expect[*wamp.Registered](callee)
		caller := join(t, r.Gate(), "realm1", nil)
		for i, cancel := range []func(req wamp.ID){
			func(req wamp.ID) { caller.send(&wamp.Cancel{Request: req, Options: wamp.Dict{"mode": "kill"}}) },
			func(req wamp.ID) { caller.send(&wamp.Cancel{Request: req, Options: wamp.Dict{"mode": "killnowait"}}) },
			nil, // the call's timeout option
		} {
			req := wamp.ID(10 + i)
			opts := wamp.Dict{}
			if cancel == nil {
				opts["timeout"] = 50
			}
			caller.send(&wamp.Call{Request: req, Options: opts, Procedure: "com.p"})
			inv := expect[*wamp.Invocation](callee)
			if cancel != nil {
				cancel(req)
			}
			if e := expect[*wamp.Error](caller); e.Request != req {
				t.Fatalf("ERROR for request %d, want %d", e.Request, req)
			}
			callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
			callee.quiet()
			caller.quiet()
		}
	})
}
