package router

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/wamp"
)

// poison is a value the fake serializer of encodePeer cannot encode, as
// JSON cannot encode NaN or a channel that an in-process session sends.
type poison struct{}

// encodePeer is a fakePeer whose serializer cannot encode a poison: Send
// returns a *wamp.EncodeError for a message holding one (in its payload,
// an ERROR's or a WELCOME's details), and nothing is sent.
type encodePeer struct{ *fakePeer }

func (p *encodePeer) Send(m wamp.Message) error {
	pl := wamp.PayloadOf(m)
	held := fmt.Sprintf("%#v %#v", pl.Args, pl.Kwargs)
	switch m := wamp.Unwrap(m).(type) {
	case *wamp.Error:
		held += fmt.Sprintf("%#v", m.Details)
	case *wamp.Welcome:
		held += fmt.Sprintf("%#v", m.Details)
	}
	if strings.Contains(held, "router.poison") {
		return fmt.Errorf("fake: %w", &wamp.EncodeError{Type: m.Type(), Err: errors.New("fake: cannot encode a poison")})
	}
	return p.fakePeer.Send(m)
}

// joinEncoding joins realm1 over an encodePeer.
func joinEncoding(t testing.TB, g *Gate, details wamp.Dict) *client {
	t.Helper()
	p := newFakePeer(256)
	c := attachAs(t, g, p, &encodePeer{fakePeer: p})
	c.hello("realm1", details)
	return c
}

// TestCallUnencodable: a RESULT the caller's serializer cannot encode,
// or an INVOCATION the callee's cannot, fails the call at once with ERROR
// wamp.error.invalid_argument saying which; a progressive RESULT
// interrupts the callee with that reason. The sessions stay open, the
// refusal is counted apart from those too long, and logged.
func TestCallUnencodable(t *testing.T) {
	tests := []struct {
		name        string
		callerCodec bool // the caller's peer encodes (else the callee's)
		progressive bool
		want        string
	}{
		{"result", true, false, "RESULT with a value the caller's serializer cannot encode (fake: cannot encode a poison)"},
		{"progressive result", true, true, "RESULT with a value the caller's serializer cannot encode"},
		{"invocation", false, false, "INVOCATION with a value the callee's serializer cannot encode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log logtest.Log
			bubble(t, Options{Logger: log.Logger(slog.LevelWarn)}, func(t *testing.T, r *Router) {
				var caller, callee *client
				if tt.callerCodec {
					callee = join(t, r.Gate(), "realm1", nil)
					caller = joinEncoding(t, r.Gate(), nil)
				} else {
					callee = joinEncoding(t, r.Gate(), clientRoles())
					caller = join(t, r.Gate(), "realm1", nil)
				}
				callee.register("com.p", nil)
				req := caller.call("com.p", wamp.Dict{"receive_progress": tt.progressive}, poison{})
				if tt.callerCodec {
					inv := expect[*wamp.Invocation](callee)
					callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{"progress": tt.progressive}, Args: wamp.List{poison{}}})
				}
				e := caller.expectError(wamp.ErrInvalidArgument)
				if msg := fmt.Sprint(e.Args...); e.Request != req || !strings.HasPrefix(msg, tt.want) {
					t.Errorf("ERROR %+v, want for CALL %d saying %q", e, req, tt.want)
				}
				if tt.progressive {
					if it := expect[*wamp.Interrupt](callee); it.Options[wamp.OptReason] != string(wamp.ErrInvalidArgument) {
						t.Errorf("INTERRUPT %+v, want reason invalid_argument", it)
					}
				}
				callee.quiet()
				caller.quiet()
				st := r.Stats()
				if st.Unencodable != 1 || st.TooLong != 0 || st.Realms["realm1"].CallsInFlight != 0 || st.CallErrors[string(wamp.ErrInvalidArgument)] != 1 {
					t.Errorf("stats: Unencodable %d, TooLong %d, calls in flight %d, call errors %v; want 1, 0, 0 and one invalid_argument",
						st.Unencodable, st.TooLong, st.Realms["realm1"].CallsInFlight, st.CallErrors)
				}
				lines := log.Lines(t, "message its receiver's serializer cannot encode: not sent")
				if len(lines) != 1 || !strings.Contains(fmt.Sprint(lines[0]["err"]), "cannot encode a poison") {
					t.Errorf("log lines %v, want one saying why", lines)
				}
				req = caller.call("com.p", nil, "fine")
				inv := expect[*wamp.Invocation](callee)
				callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}, Args: wamp.List{"fine"}})
				if res := expect[*wamp.Result](caller); res.Request != req {
					t.Errorf("RESULT %+v after the refused one", res)
				}
			})
		})
	}
}

// TestEventUnencodable: a subscriber whose serializer cannot encode an
// EVENT misses it (counted); the others get it, the publisher its
// PUBLISHED, and the subscriber the next events.
func TestEventUnencodable(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		strict := joinEncoding(t, r.Gate(), nil)
		strict.subscribe("com.t", nil)
		other := join(t, r.Gate(), "realm1", nil)
		other.subscribe("com.t", nil)
		pub := join(t, r.Gate(), "realm1", nil)
		req := pub.publish("com.t", wamp.Dict{"acknowledge": true}, poison{})
		if p := expect[*wamp.Published](pub); p.Request != req {
			t.Errorf("PUBLISHED %+v", p)
		}
		if ev := expect[*wamp.Event](other); ev.Args[0] != (poison{}) {
			t.Errorf("EVENT %+v", ev)
		}
		strict.quiet()
		pub.publish("com.t", nil, "fine")
		for _, c := range []*client{other, strict} {
			if ev := expect[*wamp.Event](c); ev.Args[0] != "fine" {
				t.Errorf("EVENT %+v", ev)
			}
		}
		if st := r.Stats(); st.Unencodable != 1 || st.TooLong != 0 {
			t.Errorf("Unencodable %d, TooLong %d; want 1, 0", st.Unencodable, st.TooLong)
		}
	})
}

// TestErrorUnencodable: a callee's ERROR its caller's serializer cannot
// encode is replaced by one with the same URI whose only argument says
// what was cut.
func TestErrorUnencodable(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		callee := join(t, r.Gate(), "realm1", nil)
		callee.register("com.p", nil)
		caller := joinEncoding(t, r.Gate(), nil)
		req := caller.call("com.p", nil)
		inv := expect[*wamp.Invocation](callee)
		callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: inv.Request,
			Details: wamp.Dict{"why": poison{}}, Error: "com.error.odd", Args: wamp.List{poison{}}})
		e := caller.expectError("com.error.odd")
		const want = "the error's details and arguments were cut: ERROR with a value the client's serializer cannot encode"
		if msg := fmt.Sprint(e.Args...); e.Request != req || len(e.Details) != 0 || !strings.HasPrefix(msg, want) {
			t.Errorf("ERROR %+v, want for CALL %d saying %q", e, req, want)
		}
	})
}

// extraAuth is a fake in-process authenticator that welcomes anyone as
// anonymous with its authextra, as a dynamic one may.
type extraAuth struct{ extra wamp.Dict }

func (extraAuth) Method() string { return "anonymous" }

func (a extraAuth) Start(*auth.Request) (*auth.Identity, auth.Challenge, error) {
	return &auth.Identity{AuthID: "someone", AuthRole: "anonymous", AuthMethod: "anonymous", AuthExtra: a.extra}, nil, nil
}

// TestWelcomeUnencodable: a WELCOME the client's serializer cannot encode
// (an in-process authenticator's authextra holding a value it cannot
// carry) ends the session with ABORT wamp.error.invalid_argument saying
// so, rather than leave the client waiting; the session leaves its realm,
// and the refusal is counted.
func TestWelcomeUnencodable(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		p := newFakePeer(16)
		c := attachAs(t, r.Gate(extraAuth{wamp.Dict{"key": poison{}}}), p, &encodePeer{fakePeer: p})
		c.send(&wamp.Hello{Realm: "realm1", Details: clientRoles()})
		a := c.expectAbort(wamp.ErrInvalidArgument)
		const want = "WELCOME with a value the client's serializer cannot encode (fake: cannot encode a poison)"
		if msg, _ := a.Details[wamp.KeyMessage].(string); msg != want {
			t.Errorf("ABORT %+v, want the message %q", a, want)
		}
		synctest.Wait()
		if st := r.Stats(); st.Sessions != 0 || st.Realms["realm1"].Sessions != 0 || st.Unencodable != 1 || st.Sent["WELCOME"] != 0 {
			t.Errorf("stats %+v", st)
		}
	})
}
