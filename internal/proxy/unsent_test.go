package proxy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// strictLimit is the longest message a strict client accepts, and long
// an argument longer than that.
const strictLimit = 1024

var long = strings.Repeat("x", 4*strictLimit)

// strictPeer is a client's peer as the relay holds it: like a RawSocket
// peer speaking JSON, its Send refuses before writing anything a message
// JSON cannot encode (a *wamp.EncodeError) or longer than strictLimit
// once encoded (a *wamp.MessageTooLongError).
type strictPeer struct{ wamp.Peer }

func (p strictPeer) Send(m wamp.Message) error {
	b, err := codec.JSON.Encode(m)
	if err != nil {
		return err
	}
	if len(b) > strictLimit {
		return &wamp.MessageTooLongError{Type: m.Type(), Length: len(b), Limit: strictLimit}
	}
	return p.Peer.Send(m)
}

// attachStrict attaches a strict client to e, and returns its side.
func attachStrict(e *Entry) wamp.Peer {
	mine, theirs := local.Pair(local.Options{})
	go e.Attach(strictPeer{theirs})
	return mine
}

// anonymousEntry is an entry of a relay to a backend router, with realm1
// routed for role anonymous.
func anonymousEntry(t *testing.T) (*Relay, *Entry) {
	t.Helper()
	b := &Backend{Name: "conn1", Dial: dialer(backend(t, auth.AnonymousProxy()), nil), Methods: []string{auth.MethodAnonymousProxy}}
	rl := relayTo(t, b, "anonymous")
	return rl, rl.Entry(EntryOptions{})
}

// TestRelayRefusedByClient: a backend's message that the client's peer
// refuses, too long or not encodable, is answered for and the sessions go
// on: an INVOCATION with ERROR to the backend (its caller gets it), a
// RESULT with ERROR to the client, an ERROR with its URI alone; an EVENT
// is skipped. Each is counted by reason.
func TestRelayRefusedByClient(t *testing.T) {
	rl, e := anonymousEntry(t)
	cfg := client.Config{Realm: "realm1"}
	plain := mustJoin(t, e, cfg)
	strict, err := client.Join(t.Context(), attachStrict(e), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer strict.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	answer := func(args ...any) client.InvocationHandler {
		return func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			if len(args) == 0 {
				return &client.Result{Args: inv.Args}, nil
			}
			return &client.Result{Args: args}, nil
		}
	}
	procs := []struct {
		s    *client.Session
		proc wamp.URI
		h    client.InvocationHandler
	}{
		{strict, "com.strict.echo", answer()},
		{plain, "com.plain.long", answer(long)},
		{plain, "com.plain.nan", answer(math.NaN())},
		{plain, "com.plain.error", func(context.Context, *client.Invocation) (*client.Result, error) {
			return nil, &wamp.RequestError{URI: "com.error.long", Args: wamp.List{long}}
		}},
	}
	for _, p := range procs {
		if _, err := p.s.Register(ctx, p.proc, p.h, nil); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		caller *client.Session
		proc   wamp.URI
		arg    any
		want   wamp.URI
	}{
		{"invocation too long", plain, "com.strict.echo", long, wamp.ErrPayloadSizeExceeded},
		{"invocation unencodable", plain, "com.strict.echo", math.Inf(1), wamp.ErrInvalidArgument},
		{"result too long", strict, "com.plain.long", nil, wamp.ErrPayloadSizeExceeded},
		{"result unencodable", strict, "com.plain.nan", nil, wamp.ErrInvalidArgument},
		{"error too long", strict, "com.plain.error", nil, "com.error.long"},
	}
	for _, tt := range tests {
		_, err := tt.caller.Call(ctx, tt.proc, wamp.List{tt.arg}, nil)
		if re, ok := errors.AsType[*wamp.RequestError](err); !ok || re.URI != tt.want {
			t.Errorf("%s: Call: %v, want ERROR %s", tt.name, err, tt.want)
		}
	}
	if res, err := plain.Call(ctx, "com.strict.echo", wamp.List{"short"}, nil); err != nil || res.Args[0] != "short" {
		t.Errorf("a call after: %v, %v", res, err)
	}

	events := make(chan any, 3)
	if _, err := strict.Subscribe(ctx, "com.news", func(ev *client.Event) { events <- ev.Args[0] }, nil); err != nil {
		t.Fatal(err)
	}
	publishThenShort(ctx, t, plain, events, wamp.Dict{wamp.OptAcknowledge: true}, long, math.NaN())
	if st := rl.Stats(); st.ToClient != (Refusals{TooLong: 4, Unencodable: 3}) || st.ToBackend != (Refusals{}) {
		t.Errorf("stats: %+v to the client, %+v to the backend; want 4 too long (invocation, result, error, event) and 3 unencodable, none", st.ToClient, st.ToBackend)
	}
	if strict.Err() != nil || plain.Err() != nil {
		t.Errorf("a session ended: %v, %v", strict.Err(), plain.Err())
	}
}

// streamLong is a procedure that sends a progressive result "first",
// then one too long, and waits to be interrupted; it closes interrupted
// then.
func streamLong(interrupted chan<- struct{}) client.InvocationHandler {
	return func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		inv.SendProgress(&client.Result{Args: wamp.List{"first"}})
		inv.SendProgress(&client.Result{Args: wamp.List{long}})
		<-ctx.Done()
		close(interrupted)
		return nil, ctx.Err()
	}
}

// TestRelayProgressiveResultRefused: a progressive RESULT too long for
// the client ends its call with ERROR wamp.error.payload_size_exceeded;
// the relay cancels the call on the backend (the callee is interrupted)
// and drops the backend's own ERROR for it, so that the client's next
// message is the answer to its next call.
func TestRelayProgressiveResultRefused(t *testing.T) {
	_, e := anonymousEntry(t)
	callee := mustJoin(t, e, client.Config{Realm: "realm1"})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	interrupted := make(chan struct{})
	_, err := callee.Register(ctx, "com.stream", streamLong(interrupted), nil)
	if err == nil {
		_, err = callee.Register(ctx, "com.short", func(context.Context, *client.Invocation) (*client.Result, error) {
			return &client.Result{Args: wamp.List{"short"}}, nil
		}, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	p := attachStrict(e)
	defer p.Close()
	recv := func() wamp.Message {
		t.Helper()
		m, err := p.Recv()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	p.Send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"roles": map[string]any{"caller": map[string]any{
		"features": map[string]any{"progressive_call_results": true, "call_canceling": true}}}}})
	if m := recv(); m.Type() != wamp.TypeWelcome {
		t.Fatalf("got %v, want WELCOME", m)
	}
	p.Send(&wamp.Call{Request: 1, Options: wamp.Dict{wamp.OptReceiveProgress: true}, Procedure: "com.stream"})
	if m := recv(); m.Type() != wamp.TypeResult || m.(*wamp.Result).Args[0] != "first" {
		t.Fatalf("got %v, want the first progressive RESULT", m)
	}
	if m := recv(); m.Type() != wamp.TypeError || m.(*wamp.Error).Request != 1 || m.(*wamp.Error).Error != wamp.ErrPayloadSizeExceeded {
		t.Fatalf("got %v, want ERROR %s for CALL 1", m, wamp.ErrPayloadSizeExceeded)
	}
	select {
	case <-interrupted:
	case <-ctx.Done():
		t.Fatal("the callee was not interrupted")
	}
	p.Send(&wamp.Call{Request: 2, Options: wamp.Dict{}, Procedure: "com.short"})
	if m := recv(); m.Type() != wamp.TypeResult || m.(*wamp.Result).Request != 2 {
		t.Fatalf("got %v, want the RESULT of CALL 2 (the backend's ERROR for CALL 1 dropped)", m)
	}
}

// publishThenShort has s publish each of args to com.news with opts, then
// "short", and checks that the first event the subscriber's handler puts
// on events is the short one: none of args was relayed.
func publishThenShort(ctx context.Context, t *testing.T, s *client.Session, events <-chan any, opts wamp.Dict, args ...any) {
	t.Helper()
	for _, arg := range append(args, "short") {
		if _, err := s.Publish(ctx, "com.news", wamp.List{arg}, nil, opts); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case got := <-events:
		if got != "short" {
			t.Errorf("the subscriber's first event: %.10v, want the short one", got)
		}
	case <-ctx.Done():
		t.Fatal("no event")
	}
}

// strictBackend is an entry of a relay whose backend connections are
// strict (strictPeer: as a RawSocket speaking JSON with a maximum message
// length of strictLimit), with realm1 routed for role anonymous.
func strictBackend(t *testing.T) (*Relay, *Entry) {
	t.Helper()
	g := backend(t, auth.AnonymousProxy())
	dial := func(context.Context) (wamp.Peer, error) {
		mine, theirs := local.Pair(local.Options{})
		go g.Attach(theirs)
		return strictPeer{mine}, nil
	}
	rl := relayTo(t, &Backend{Name: "conn1", Dial: dial, Methods: []string{auth.MethodAnonymousProxy}}, "anonymous")
	return rl, rl.Entry(EntryOptions{})
}

// TestRelayRefusedByBackend: a client's message that the backend
// connection refuses, too long or not encodable, is answered for and the
// sessions go on: a CALL, SUBSCRIBE, REGISTER or acknowledged PUBLISH
// with ERROR to the client, a YIELD with ERROR to the backend (its caller
// gets it), an ERROR with its URI alone; a PUBLISH without acknowledge is
// dropped. Each is counted by reason, apart from the other direction.
func TestRelayRefusedByBackend(t *testing.T) {
	rl, e := strictBackend(t)
	cfg := client.Config{Realm: "realm1"}
	caller, callee := mustJoin(t, e, cfg), mustJoin(t, e, cfg)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	answer := func(res *client.Result, err error) client.InvocationHandler {
		return func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			if res == nil && err == nil {
				return &client.Result{Args: inv.Args}, nil
			}
			return res, err
		}
	}
	procs := map[wamp.URI]client.InvocationHandler{
		"com.echo":  answer(nil, nil),
		"com.long":  answer(&client.Result{Args: wamp.List{long}}, nil),
		"com.nan":   answer(&client.Result{Args: wamp.List{math.NaN()}}, nil),
		"com.error": answer(nil, &wamp.RequestError{URI: "com.error.long", Args: wamp.List{long}}),
	}
	for proc, h := range procs {
		if _, err := callee.Register(ctx, proc, h, nil); err != nil {
			t.Fatal(err)
		}
	}
	events := make(chan any, 2)
	if _, err := callee.Subscribe(ctx, "com.news", func(ev *client.Event) { events <- ev.Args[0] }, nil); err != nil {
		t.Fatal(err)
	}
	call := func(proc wamp.URI, arg any) func() error {
		return func() error { _, err := caller.Call(ctx, proc, wamp.List{arg}, nil); return err }
	}
	publish := func(arg any) func() error {
		return func() error {
			_, err := caller.Publish(ctx, "com.news", wamp.List{arg}, nil, wamp.Dict{wamp.OptAcknowledge: true})
			return err
		}
	}
	tests := []struct {
		name string
		do   func() error
		want wamp.URI
	}{
		{"call too long", call("com.echo", long), wamp.ErrPayloadSizeExceeded},
		{"call unencodable", call("com.echo", math.Inf(1)), wamp.ErrInvalidArgument},
		{"yield too long", call("com.long", nil), wamp.ErrPayloadSizeExceeded},
		{"yield unencodable", call("com.nan", nil), wamp.ErrInvalidArgument},
		{"error too long", call("com.error", nil), "com.error.long"},
		{"publish too long", publish(long), wamp.ErrPayloadSizeExceeded},
		{"publish unencodable", publish(math.NaN()), wamp.ErrInvalidArgument},
		{"subscribe too long", func() error {
			_, err := caller.Subscribe(ctx, "com.news", func(*client.Event) {}, wamp.Dict{"x": long})
			return err
		}, wamp.ErrPayloadSizeExceeded},
		{"register unencodable", func() error {
			_, err := caller.Register(ctx, "com.other", answer(nil, nil), wamp.Dict{"x": math.NaN()})
			return err
		}, wamp.ErrInvalidArgument},
	}
	for _, tt := range tests {
		if re, ok := errors.AsType[*wamp.RequestError](tt.do()); !ok || re.URI != tt.want {
			t.Errorf("%s: %v, want ERROR %s", tt.name, re, tt.want)
		}
	}
	// Unacknowledged: dropped, and the next one goes.
	publishThenShort(ctx, t, caller, events, nil, long)
	if res, err := caller.Call(ctx, "com.echo", wamp.List{"short"}, nil); err != nil || res.Args[0] != "short" {
		t.Errorf("a call after: %v, %v", res, err)
	}
	if st := rl.Stats(); st.ToBackend != (Refusals{TooLong: 6, Unencodable: 4}) || st.ToClient != (Refusals{}) {
		t.Errorf("stats: %+v to the backend, %+v to the client; want 6 too long (call, yield, error, 2 publish, subscribe) and 4 unencodable (call, yield, publish, register), none",
			st.ToBackend, st.ToClient)
	}
	if caller.Err() != nil || callee.Err() != nil {
		t.Errorf("a session ended: %v, %v", caller.Err(), callee.Err())
	}
}

// TestRelayProgressiveYieldRefused: a progressive YIELD too long for the
// backend ends the call with ERROR wamp.error.payload_size_exceeded for
// the caller, and the callee, which announced call_canceling, is
// interrupted by the relay.
func TestRelayProgressiveYieldRefused(t *testing.T) {
	_, e := strictBackend(t)
	cfg := client.Config{Realm: "realm1"}
	caller, callee := mustJoin(t, e, cfg), mustJoin(t, e, cfg)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	interrupted := make(chan struct{})
	_, err := callee.Register(ctx, "com.stream", streamLong(interrupted), nil)
	if err != nil {
		t.Fatal(err)
	}
	var progress []any
	_, err = caller.Call(ctx, "com.stream", nil, nil, client.WithProgress(func(r *client.Result) { progress = append(progress, r.Args[0]) }))
	if re, ok := errors.AsType[*wamp.RequestError](err); !ok || re.URI != wamp.ErrPayloadSizeExceeded || len(progress) != 1 {
		t.Errorf("Call: %v after %d progressive results, want ERROR %s after the first", err, len(progress), wamp.ErrPayloadSizeExceeded)
	}
	select {
	case <-interrupted:
	case <-ctx.Done():
		t.Fatal("the callee was not interrupted")
	}
}

// rawJoin joins realm1 through e with a bare peer, whose messages the
// test writes itself, and returns it.
func rawJoin(t *testing.T, e *Entry) wamp.Peer {
	t.Helper()
	mine, theirs := local.Pair(local.Options{})
	go e.Attach(theirs)
	t.Cleanup(func() { mine.Close() })
	mine.Send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"roles": map[string]any{"caller": map[string]any{}}}})
	if m := recv(t, mine); m.Type() != wamp.TypeWelcome {
		t.Fatalf("got %v, want WELCOME", m)
	}
	return mine
}

// recv is p's next message; the test fails if none comes within 10 s
// (the relay left the client waiting).
func recv(t *testing.T, p wamp.Peer) wamp.Message {
	t.Helper()
	type received struct {
		m   wamp.Message
		err error
	}
	ch := make(chan received, 1)
	go func() { m, err := p.Recv(); ch <- received{m, err} }()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.m
	case <-time.After(10 * time.Second):
		p.Close() // ends the Recv
		t.Fatal("no message: the client was left waiting")
	}
	return nil
}

// TestRelayRefusedByBackendPlainer: a client's CANCEL or GOODBYE that the
// backend connection refuses goes in its plainer form (the CANCEL with
// its mode alone, the GOODBYE without details: the backend router answers
// them); a message nothing can
// stand for (a HELLO after the join) ends the session with ABORT and the
// refusal's URI.
func TestRelayRefusedByBackendPlainer(t *testing.T) {
	_, e := strictBackend(t)
	callee := mustJoin(t, e, client.Config{Realm: "realm1"})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := callee.Register(ctx, "com.slow", func(ctx context.Context, _ *client.Invocation) (*client.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	junk := wamp.Dict{"x": long}
	tests := []struct {
		name string
		send []wamp.Message
		want func(wamp.Message) bool
	}{
		{"cancel", []wamp.Message{&wamp.Call{Request: 1, Options: wamp.Dict{}, Procedure: "com.slow"},
			&wamp.Cancel{Request: 1, Options: wamp.Dict{wamp.OptMode: wamp.CancelKill, "x": long}}},
			func(m wamp.Message) bool {
				e, ok := m.(*wamp.Error)
				return ok && e.Request == 1 && e.Error == wamp.ErrCanceled
			}},
		{"goodbye", []wamp.Message{&wamp.Goodbye{Details: junk, Reason: wamp.ErrCloseNormal}},
			func(m wamp.Message) bool { g, ok := m.(*wamp.Goodbye); return ok && g.Reason == wamp.ErrGoodbyeAndOut }},
		{"hello after the join", []wamp.Message{&wamp.Hello{Realm: "realm1", Details: junk}},
			func(m wamp.Message) bool {
				a, ok := m.(*wamp.Abort)
				return ok && a.Reason == wamp.ErrPayloadSizeExceeded
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := rawJoin(t, e)
			for _, m := range tt.send {
				p.Send(m)
			}
			if m := recv(t, p); !tt.want(m) {
				t.Errorf("got %#v", m)
			}
		})
	}
}

// extraAuth authenticates anyone as anonymous with its authextra, which
// the backend router's WELCOME carries back (as a dynamic authenticator's
// may).
type extraAuth struct{ extra wamp.Dict }

func (extraAuth) Method() string { return auth.MethodAnonymous }

func (a extraAuth) Start(*auth.Request) (*auth.Identity, auth.Challenge, error) {
	return &auth.Identity{AuthID: "someone", AuthRole: "anonymous", AuthMethod: auth.MethodAnonymous, AuthExtra: a.extra}, nil, nil
}

// TestRelayWelcomeRefused: a WELCOME that the client's peer refuses (an
// authextra too long for it, or one its serializer cannot encode) ends
// the session with ABORT and the refusal's URI, rather than leave the
// client waiting; it is counted, and the session leaves.
func TestRelayWelcomeRefused(t *testing.T) {
	tests := []struct {
		name  string
		extra any
		want  wamp.URI
		stats Refusals
	}{
		{"too long", long, wamp.ErrPayloadSizeExceeded, Refusals{TooLong: 1}},
		{"unencodable", math.NaN(), wamp.ErrInvalidArgument, Refusals{Unencodable: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Backend{Name: "conn1", Dial: dialer(backend(t, auth.AnonymousProxy()), nil), Methods: []string{auth.MethodAnonymousProxy}}
			rl := relayTo(t, b, "anonymous")
			p := attachStrict(rl.Entry(EntryOptions{Auths: []auth.Authenticator{extraAuth{wamp.Dict{"x": tt.extra}}}}))
			defer p.Close()
			p.Send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"authmethods": []any{auth.MethodAnonymous}}})
			m := recv(t, p)
			if a, ok := m.(*wamp.Abort); !ok || a.Reason != tt.want || !strings.HasPrefix(fmt.Sprint(a.Details[wamp.KeyMessage]), "WELCOME ") {
				t.Fatalf("got %#v, want ABORT %s about the WELCOME", m, tt.want)
			}
			if _, err := p.Recv(); err == nil {
				t.Error("the connection is still open")
			}
			if st := rl.Stats(); st.ToClient != tt.stats || len(st.Sessions) != 0 {
				t.Errorf("stats: %+v, %v sessions; want %+v, none", st.ToClient, st.Sessions, tt.stats)
			}
		})
	}
}
