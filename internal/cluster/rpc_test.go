package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/wamp"
)

// rpcWait bounds every wait of these tests.
const rpcWait = 20 * time.Second

// site is one node of a test cluster with its router.
type site struct {
	node   *cluster.Node
	router *router.Router
	fabric *cluster.Fabric
}

// startSites starts n nodes, each with a router linked to the cluster
// (realm1), closed at the end of the test.
func startSites(t testing.TB, n int, opts ...clustertest.Option) []*site {
	t.Helper()
	return startRealmSites(t, n, router.RealmOptions{Name: "realm1"}, opts...)
}

// startRealmSites is startSites with realm1's options (its name must be
// realm1).
func startRealmSites(t testing.TB, n int, realm router.RealmOptions, opts ...clustertest.Option) []*site {
	t.Helper()
	realms := make([][]router.RealmOptions, n)
	for i := range realms {
		realms[i] = []router.RealmOptions{realm}
	}
	return startSitesServing(t, realms, opts...)
}

// startSitesServing starts a node for each of realms, with a router
// serving its realms.
func startSitesServing(t testing.TB, realms [][]router.RealmOptions, opts ...clustertest.Option) []*site {
	t.Helper()
	nodes := clustertest.Start(t, len(realms), opts...)
	sites := make([]*site, len(realms))
	for i, nd := range nodes {
		f := cluster.NewFabric(nd, slog.New(slog.DiscardHandler))
		r, err := router.New(router.Options{Realms: realms[i], Fabric: f})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			r.Close()
			f.Close()
		})
		ctx, cancel := context.WithTimeout(context.Background(), rpcWait)
		err = f.Start(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		sites[i] = &site{node: nd, router: r, fabric: f}
	}
	return sites
}

// join joins realm1 on s's router over an in-memory peer.
func (s *site) join(t testing.TB) *client.Session {
	t.Helper()
	a, b := local.Pair(local.Options{})
	go s.router.Attach(b)
	ctx, cancel := context.WithTimeout(context.Background(), rpcWait)
	defer cancel()
	c, err := client.Join(ctx, a, client.Config{Realm: "realm1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), rpcWait)
	t.Cleanup(cancel)
	return ctx
}

func register(t *testing.T, s *client.Session, proc wamp.URI, h client.InvocationHandler, opts wamp.Dict) *client.Registration {
	t.Helper()
	reg, err := s.Register(ctxFor(t), proc, h, opts)
	if err != nil {
		t.Fatalf("register %s: %v", proc, err)
	}
	return reg
}

// answer is a handler that returns its name.
func answer(name string) client.InvocationHandler {
	return func(context.Context, *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: wamp.List{name}}, nil
	}
}

func isError(err error, uri wamp.URI) bool {
	var re *wamp.RequestError
	return errors.As(err, &re) && re.URI == uri
}

// waitCallees waits until a call from s's node to proc reaches n callees:
// the node has mirrored every registration (the meta API counts remote
// callees too).
func waitCallees(t *testing.T, s *client.Session, reg *client.Registration, n int) {
	t.Helper()
	deadline := time.Now().Add(rpcWait)
	for {
		res, err := s.Call(ctxFor(t), "wamp.registration.count_callees", wamp.List{uint64(reg.ID())}, nil)
		if err == nil && len(res.Args) == 1 && res.Args[0] == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("count_callees: %v, %v; want %d", res, err, n)
		}
		<-time.After(10 * time.Millisecond) // polling the meta API with a deadline
	}
}

func TestRPC(t *testing.T) {
	sites := startSites(t, 3)
	t.Run("call", func(t *testing.T) { testCall(t, sites) })
	t.Run("single raced", func(t *testing.T) { testSingleRace(t, sites) })
	t.Run("policies", func(t *testing.T) { testPolicies(t, sites) })
	t.Run("progress", func(t *testing.T) { testProgress(t, sites) })
	t.Run("timeout", func(t *testing.T) { testTimeout(t, sites) })
	t.Run("cancel", func(t *testing.T) { testCancel(t, sites) })
	t.Run("read your writes", func(t *testing.T) { testReadYourWrites(t, sites) })
	t.Run("gap", func(t *testing.T) { testGap(t, sites) })
}

func testCall(t *testing.T, sites []*site) {
	callee, caller := sites[0].join(t), sites[1].join(t)
	reg := register(t, callee, "com.add", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		if inv.Kwargs.Dict()["fail"] == true {
			return nil, &wamp.RequestError{URI: "com.failed", Args: wamp.List{"bad", 1}, Kwargs: wamp.ObjectOf(wamp.Dict{"why": "asked"})}
		}
		a, _ := wamp.AsInt(inv.Args[0])
		b, _ := wamp.AsInt(inv.Args[1])
		return &client.Result{Args: wamp.List{a + b}, Kwargs: wamp.ObjectOf(wamp.Dict{"caller": inv.Details["caller"]})}, nil
	}, nil)
	res, err := caller.Call(ctxFor(t), "com.add", wamp.List{2, 3}, nil, client.WithOptions(wamp.Dict{"disclose_me": true}))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := wamp.AsInt(res.Args[0]); n != 5 {
		t.Errorf("result %v", res.Args)
	}
	if id, _ := wamp.AsInt(res.Kwargs.Dict()["caller"]); wamp.ID(id) != caller.ID() {
		t.Errorf("the callee saw caller %v, want %d (disclosed)", res.Kwargs.Dict()["caller"], caller.ID())
	}
	_, err = caller.Call(ctxFor(t), "com.add", wamp.List{1, 1}, wamp.ObjectOf(wamp.Dict{"fail": true}))
	var re *wamp.RequestError
	if !errors.As(err, &re) || re.URI != "com.failed" || !slices.Equal(re.Args, wamp.List{"bad", uint64(1)}) && !slices.Equal(re.Args, wamp.List{"bad", int64(1)}) || re.Kwargs.Dict()["why"] != "asked" {
		t.Errorf("error %#v", err)
	}
	// Undisclosed, the callee does not learn who calls.
	res, err = sites[2].join(t).Call(ctxFor(t), "com.add", wamp.List{1, 2}, nil)
	if err != nil || res.Kwargs.Dict()["caller"] != nil {
		t.Errorf("undisclosed call: %+v, %v", res, err)
	}
	if err := reg.Unregister(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
}

// testSingleRace registers one procedure from two nodes at once, many
// times: exactly one wins each time.
func testSingleRace(t *testing.T, sites []*site) {
	a, b := sites[0].join(t), sites[1].join(t)
	for i := range 25 {
		var wg sync.WaitGroup
		var regs [2]*client.Registration
		var errs [2]error
		for j, s := range []*client.Session{a, b} {
			wg.Go(func() { regs[j], errs[j] = s.Register(ctxFor(t), "com.race", answer("x"), nil) })
		}
		wg.Wait()
		won := 0
		for j := range 2 {
			switch {
			case errs[j] == nil:
				won++
			case !isError(errs[j], wamp.ErrProcedureAlreadyExists):
				t.Fatalf("round %d: %v", i, errs[j])
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d registrations won, want 1 (%v)", i, won, errs)
		}
		for _, r := range regs {
			if r != nil {
				if err := r.Unregister(ctxFor(t)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// testPolicies: callees on every node, in registration order 0, 1, 2.
func testPolicies(t *testing.T, sites []*site) {
	tests := []struct {
		policy string
		want   []string // the callees in turn; nil: any
	}{
		{wamp.InvokeRoundRobin, []string{"c0", "c1", "c2"}},
		{wamp.InvokeFirst, []string{"c0"}},
		{wamp.InvokeLast, []string{"c2"}},
		{wamp.InvokeRandom, nil},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			proc := wamp.URI("com.policy." + tt.policy)
			var regs []*client.Registration
			for i, s := range sites {
				regs = append(regs, register(t, s.join(t), proc, answer(fmt.Sprintf("c%d", i)), wamp.Dict{"invoke": tt.policy}))
			}
			for _, s := range sites {
				caller := s.join(t)
				waitCallees(t, caller, regs[0], len(sites))
				seen := map[string]bool{}
				for i := range 9 {
					res, err := caller.Call(ctxFor(t), proc, nil, nil)
					if err != nil {
						t.Fatal(err)
					}
					got := res.Args[0].(string)
					seen[got] = true
					if tt.want != nil && got != tt.want[i%len(tt.want)] {
						t.Fatalf("call %d from %s: callee %s, want %s", i, s.node.Self().Name, got, tt.want[i%len(tt.want)])
					}
				}
				if tt.want == nil && len(seen) < 2 {
					t.Errorf("random: only %v in 9 calls", seen)
				}
			}
			for _, r := range regs {
				r.Unregister(ctxFor(t))
			}
		})
	}
}

func testProgress(t *testing.T, sites []*site) {
	callee, caller := sites[2].join(t), sites[0].join(t)
	register(t, callee, "com.progress", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		for i := range 3 {
			if err := inv.SendProgress(&client.Result{Args: wamp.List{i}}); err != nil {
				return nil, err
			}
		}
		return &client.Result{Args: wamp.List{"done"}}, nil
	}, nil)
	var got []any
	res, err := caller.Call(ctxFor(t), "com.progress", nil, nil, client.WithProgress(func(r *client.Result) {
		got = append(got, r.Args[0])
	}))
	if err != nil || res.Args[0] != "done" {
		t.Fatalf("final result %+v, %v", res, err)
	}
	if len(got) != 3 {
		t.Errorf("progressive results %v, want 0, 1, 2", got)
	}
	for i, v := range got {
		if n, _ := wamp.AsInt(v); n != int64(i) {
			t.Errorf("progressive results %v, want 0, 1, 2 in order", got)
		}
	}
}

// blocking is a handler that reports each invocation and waits for its
// INTERRUPT (its context) or release.
type blocking struct {
	started     chan struct{}
	interrupted chan struct{}
	release     chan struct{}
}

func newBlocking() *blocking {
	return &blocking{started: make(chan struct{}, 1), interrupted: make(chan struct{}, 1), release: make(chan struct{})}
}

func (b *blocking) handle(ctx context.Context, _ *client.Invocation) (*client.Result, error) {
	b.started <- struct{}{}
	select {
	case <-ctx.Done():
		b.interrupted <- struct{}{}
		return nil, wamp.Errorf(wamp.ErrCanceled, "interrupted")
	case <-b.release:
		return &client.Result{Args: wamp.List{"late"}}, nil
	}
}

func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(rpcWait):
		t.Fatalf("no %s", what)
	}
}

func testTimeout(t *testing.T, sites []*site) {
	callee, caller := sites[1].join(t), sites[2].join(t)
	b := newBlocking()
	register(t, callee, "com.slow", b.handle, nil)
	_, err := caller.Call(ctxFor(t), "com.slow", nil, nil, client.WithTimeout(200*time.Millisecond))
	if !isError(err, wamp.ErrTimeout) {
		t.Fatalf("call: %v, want %s", err, wamp.ErrTimeout)
	}
	wait(t, b.started, "invocation")
	wait(t, b.interrupted, "INTERRUPT after the timeout")
}

func testCancel(t *testing.T, sites []*site) {
	for _, mode := range []string{wamp.CancelSkip, wamp.CancelKill, wamp.CancelKillNoWait} {
		t.Run(mode, func(t *testing.T) {
			callee, caller := sites[0].join(t), sites[2].join(t)
			b := newBlocking()
			proc := wamp.URI("com.cancel." + mode)
			register(t, callee, proc, b.handle, nil)
			ctx, cancel := context.WithCancel(ctxFor(t))
			done := make(chan error, 1)
			go func() {
				_, err := caller.Call(ctx, proc, nil, nil, client.WithCancelMode(mode))
				done <- err
			}()
			wait(t, b.started, "invocation")
			cancel()
			var err error
			select {
			case err = <-done:
			case <-time.After(rpcWait):
				t.Fatal("the canceled call did not return")
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("call: %v, want canceled", err)
			}
			if mode == wamp.CancelSkip {
				close(b.release) // no INTERRUPT: the handler runs to its end
				select {
				case <-b.interrupted:
					t.Error("skip interrupted the callee")
				default:
				}
				return
			}
			wait(t, b.interrupted, "INTERRUPT")
		})
	}
}

// testReadYourWrites: a CALL right after REGISTERED, on another node,
// finds the registration.
func testReadYourWrites(t *testing.T, sites []*site) {
	callee, caller := sites[0].join(t), sites[1].join(t)
	for i := range 20 {
		proc := wamp.URI(fmt.Sprintf("com.ryw.%d", i))
		register(t, callee, proc, answer("here"), nil)
		if _, err := caller.Call(ctxFor(t), proc, nil, nil); err != nil {
			t.Fatalf("call %s right after REGISTERED: %v", proc, err)
		}
	}
}

// TestRPCNodeLost: a callee's node dies mid-call: the caller gets
// wamp.error.canceled, and the procedure is gone.
func TestRPCNodeLost(t *testing.T) {
	sites := startSites(t, 3, clustertest.Lease(2*time.Second, 400*time.Millisecond))
	callee, caller := sites[2].join(t), sites[0].join(t)
	b := newBlocking()
	register(t, callee, "com.doomed", b.handle, nil)
	done := make(chan error, 1)
	go func() {
		_, err := caller.Call(ctxFor(t), "com.doomed", nil, nil)
		done <- err
	}()
	wait(t, b.started, "invocation")
	clustertest.Kill(sites[2].node)
	select {
	case err := <-done:
		if !isError(err, wamp.ErrCanceled) {
			t.Fatalf("call: %v, want %s", err, wamp.ErrCanceled)
		}
	case <-time.After(rpcWait):
		t.Fatal("the call to a lost node's callee hangs")
	}
	if _, err := caller.Call(ctxFor(t), "com.doomed", nil, nil); !isError(err, wamp.ErrNoSuchProcedure) {
		t.Errorf("call after the loss: %v, want %s", err, wamp.ErrNoSuchProcedure)
	}
	// The table no longer holds it: another node may register it once
	// it too has seen the loss.
	live := []*cluster.Node{sites[0].node, sites[1].node}
	clustertest.WaitMembers(t, live, live...)
	register(t, sites[1].join(t), "com.doomed", answer("again"), nil)
	res, err := caller.Call(ctxFor(t), "com.doomed", nil, nil)
	if err != nil || res.Args[0] != "again" {
		t.Errorf("call after a new registration: %+v, %v", res, err)
	}
}

// testGap: messages lost between two nodes end the calls between them
// (which ones the lost messages touched is unknown), on both sides; the
// registrations stay.
func testGap(t *testing.T, sites []*site) {
	callee, caller := sites[1].join(t), sites[0].join(t)
	b := newBlocking()
	register(t, callee, "com.gap.slow", b.handle, nil)
	register(t, callee, "com.gap.echo", answer("echo"), nil)
	done := make(chan error, 1)
	go func() {
		_, err := caller.Call(ctxFor(t), "com.gap.slow", nil, nil)
		done <- err
	}()
	wait(t, b.started, "invocation")
	cluster.SkipSequence(sites[0].node, sites[1].node.Self(), 3)
	caller.Call(ctxFor(t), "com.gap.echo", nil, nil) // shows the gap; its own fate may go either way
	select {
	case err := <-done:
		if !isError(err, wamp.ErrCanceled) {
			t.Fatalf("call across the gap: %v, want %s", err, wamp.ErrCanceled)
		}
	case <-time.After(rpcWait):
		t.Fatal("a call across a gap hangs")
	}
	wait(t, b.interrupted, "INTERRUPT of the call across the gap")
	if res, err := caller.Call(ctxFor(t), "com.gap.echo", nil, nil); err != nil || res.Args[0] != "echo" {
		t.Errorf("call after the gap: %+v, %v", res, err)
	}
}
