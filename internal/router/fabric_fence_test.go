package router

import (
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// TestFabricFence: a fenced realm ends its sessions from outside with
// GOODBYE wamp.close.system_shutdown and refuses their joins with ABORT
// junction.error.cluster_isolated; the node's own sessions stay, and what
// they ask of other nodes fails with that URI; Unfence lets clients in
// again.
func TestFabricFence(t *testing.T) {
	linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
		remote := join(t, r2.Gate(), "realm1", nil)
		remote.register("com.remote", nil)
		outside := join(t, r1.Gate(), "realm1", nil)
		own := join(t, r1.NewGate(GateOptions{Internal: true}), "realm1", nil)
		own.subscribe("com.topic", nil)
		own.register("com.local", nil)

		if n := c.nodes[0].link.Fence(); n != 1 {
			t.Errorf("Fence ended %d sessions, want 1 (the one from outside)", n)
		}
		if g := expect[*wamp.Goodbye](outside); g.Reason != wamp.ErrSystemShutdown {
			t.Errorf("GOODBYE %s, want %s", g.Reason, wamp.ErrSystemShutdown)
		}
		refused := attach(t, r1.Gate())
		refused.send(&wamp.Hello{Realm: "realm1", Details: clientRoles()})
		refused.expectAbort(wamp.ErrClusterIsolated)

		c.kill(c.nodes[1]) // a fenced node reports every other member lost
		own.call("com.remote", nil)
		own.expectError(wamp.ErrClusterIsolated)
		own.publish("com.topic", wamp.Dict{"acknowledge": true})
		own.expectError(wamp.ErrClusterIsolated)
		own.publish("com.topic", wamp.Dict{"exclude_me": false}, 1) // unacknowledged: delivered here
		if ev := expect[*wamp.Event](own); len(ev.Args) != 1 {
			t.Errorf("EVENT %+v", ev)
		}
		own.call("com.local", nil) // what this node serves goes on
		inv := expect[*wamp.Invocation](own)
		own.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
		expect[*wamp.Result](own)

		c.nodes[0].link.Unfence()
		join(t, r1.Gate(), "realm1", nil).quiet()
		own.quiet()
	})
}

// TestFabricRevoke: LocalCallees lists the callees that are sessions of
// this node, and Revoke removes one with UNREGISTERED (reason
// wamp.error.procedure_already_exists) when it announced
// registration_revocation, or closes it with GOODBYE otherwise.
func TestFabricRevoke(t *testing.T) {
	linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
		join(t, r2.Gate(), "realm1", nil).register("com.shared", wamp.Dict{"invoke": "roundrobin"})
		revoking := join(t, r1.Gate(), "realm1", revokingRoles())
		shared := revoking.register("com.shared", wamp.Dict{"invoke": "roundrobin"})
		plain := join(t, r1.Gate(), "realm1", nil)
		single := plain.register("com.single", nil)

		link := c.nodes[0].link
		got := link.LocalCallees()
		if len(got) != 2 {
			t.Fatalf("LocalCallees %+v, want this node's 2", got)
		}
		for _, lc := range got {
			switch lc.Session {
			case revoking.id:
				if lc.ID != shared || lc.Procedure != "com.shared" || lc.Policy != wamp.InvokeRoundRobin || lc.Match != wamp.MatchExact || !lc.CanCancel {
					t.Errorf("LocalCallee %+v", lc)
				}
			case plain.id:
				if lc.ID != single || lc.Policy != wamp.InvokeSingle {
					t.Errorf("LocalCallee %+v", lc)
				}
			default:
				t.Errorf("LocalCallee of session %d", lc.Session)
			}
		}

		if !link.Revoke(shared, revoking.id) {
			t.Fatal("Revoke: not held")
		}
		u := expect[*wamp.Unregistered](revoking)
		if u.Request != 0 || u.Details["registration"] != shared || u.Details[wamp.OptReason] != string(wamp.ErrProcedureAlreadyExists) {
			t.Errorf("UNREGISTERED %+v", u)
		}
		if link.Revoke(shared, revoking.id) {
			t.Error("Revoke of a registration no longer held: true")
		}
		if !link.Revoke(single, plain.id) {
			t.Fatal("Revoke: not held")
		}
		if g := expect[*wamp.Goodbye](plain); g.Reason != wamp.ErrSystemShutdown {
			t.Errorf("GOODBYE %s to a callee without registration_revocation", g.Reason)
		}
		plain.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrGoodbyeAndOut})
		plain.waitDone()
		if got := link.LocalCallees(); len(got) != 0 {
			t.Errorf("LocalCallees after the revocations %+v", got)
		}
		revoking.quiet()
	})
}
