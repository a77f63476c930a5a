package proxy

import (
	"context"
	"errors"
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
	for _, arg := range []any{long, math.NaN(), "short"} {
		if _, err := plain.Publish(ctx, "com.news", wamp.List{arg}, nil, wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case got := <-events:
		if got != "short" {
			t.Errorf("the strict subscriber's first event: %.10v, want the short one", got)
		}
	case <-ctx.Done():
		t.Fatal("no event")
	}
	if st := rl.Stats(); st.TooLong != 4 || st.Unencodable != 3 {
		t.Errorf("stats: TooLong %d, Unencodable %d; want 4 (invocation, result, error, event) and 3", st.TooLong, st.Unencodable)
	}
	if strict.Err() != nil || plain.Err() != nil {
		t.Errorf("a session ended: %v, %v", strict.Err(), plain.Err())
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
	_, err := callee.Register(ctx, "com.stream", func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		inv.SendProgress(&client.Result{Args: wamp.List{"first"}})
		inv.SendProgress(&client.Result{Args: wamp.List{long}})
		<-ctx.Done()
		close(interrupted)
		return nil, ctx.Err()
	}, nil)
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
