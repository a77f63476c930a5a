package router

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/wamp"
)

// limitPeer is a fakePeer that refuses a message longer than limit, as a
// RawSocket peer refuses one longer than its client announced: Send
// returns a *wamp.MessageTooLongError and nothing is sent. The length is
// the printed size of the message's payload and details (the router's
// tests do not import the codecs).
type limitPeer struct {
	*fakePeer
	limit   int
	welcome bool // a WELCOME's details count too
}

func (p *limitPeer) Send(m wamp.Message) error {
	n := fakeLength(m)
	if w, ok := m.(*wamp.Welcome); ok && p.welcome {
		n += printed(len(w.Details), w.Details)
	}
	if n > p.limit {
		return fmt.Errorf("fake: %w", &wamp.MessageTooLongError{Type: m.Type(), Length: n, Limit: p.limit})
	}
	return p.fakePeer.Send(m)
}

func fakeLength(m wamp.Message) int {
	p := wamp.PayloadOf(m)
	n := printed(len(p.Args), p.Args) + printed(len(p.Kwargs), p.Kwargs)
	switch m := wamp.Unwrap(m).(type) {
	case *wamp.Error:
		n += printed(len(m.Details), m.Details)
	case *wamp.Abort:
		n += printed(len(m.Details), m.Details)
	}
	return n
}

// printed is the length of v printed, 0 for an empty container (of
// length n).
func printed(n int, v any) int {
	if n == 0 {
		return 0
	}
	return len(fmt.Sprint(v))
}

// joinLimited joins realm1 over a peer that refuses messages longer than
// limit.
func joinLimited(t testing.TB, g *Gate, limit int, details wamp.Dict) *client {
	t.Helper()
	p := newFakePeer(256)
	c := attachAs(t, g, p, &limitPeer{fakePeer: p, limit: limit})
	c.hello("realm1", details)
	return c
}

// big is an argument longer than the limits of these tests.
var big = strings.Repeat("x", 1000)

// TestResultTooLong: a RESULT longer than the caller accepts becomes ERROR
// wamp.error.payload_size_exceeded for its CALL; the session stays open,
// the refusal is counted and logged, and the RESULT is not counted sent.
func TestResultTooLong(t *testing.T) {
	var log logtest.Log
	bubble(t, Options{Logger: log.Logger(slog.LevelWarn)}, func(t *testing.T, r *Router) {
		callee := join(t, r.Gate(), "realm1", nil)
		callee.register("com.p", nil)
		caller := joinLimited(t, r.Gate(), 100, nil)
		for _, arg := range []string{big, "small"} {
			req := caller.call("com.p", nil)
			inv := expect[*wamp.Invocation](callee)
			callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}, Args: wamp.List{arg}})
			if arg == big {
				e := caller.expectError(wamp.ErrPayloadSizeExceeded)
				if e.RequestType != wamp.TypeCall || e.Request != req || !strings.Contains(fmt.Sprint(e.Args), "RESULT of") {
					t.Errorf("ERROR %+v, want for CALL %d, saying what was too long", e, req)
				}
				continue
			}
			if res := expect[*wamp.Result](caller); res.Request != req || res.Args[0] != "small" {
				t.Errorf("RESULT %+v after the refused one", res)
			}
		}
		callee.quiet()
		synctest.Wait()
		st := r.Stats()
		if st.TooLong != 1 || st.Realms["realm1"].CallsInFlight != 0 || st.CallErrors[string(wamp.ErrPayloadSizeExceeded)] != 1 {
			t.Errorf("stats: TooLong %d, calls in flight %d, call errors %v; want 1, 0 and one payload_size_exceeded",
				st.TooLong, st.Realms["realm1"].CallsInFlight, st.CallErrors)
		}
		// Sent: the small RESULT, not the one refused; the ERROR instead.
		if st.Sent["RESULT"] != 1 || st.Sent["ERROR"] != 1 {
			t.Errorf("sent %v, want 1 RESULT and 1 ERROR", st.Sent)
		}
		lines := log.Lines(t, "message too long for its receiver: not sent")
		if len(lines) != 1 || lines[0]["type"] != "RESULT" || lines[0]["limit"] != 100.0 || lines[0]["session"] != float64(caller.id) {
			t.Errorf("log lines %v, want one for the RESULT", lines)
		}
	})
}

// TestProgressiveResultTooLong: a progressive RESULT too long ends the
// call: the caller gets ERROR wamp.error.payload_size_exceeded, a callee
// that announced call_canceling INTERRUPT (killnowait), and the callee's
// later YIELDs are ignored.
func TestProgressiveResultTooLong(t *testing.T) {
	for _, canCancel := range []bool{true, false} {
		t.Run(fmt.Sprint("call_canceling=", canCancel), func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				details := clientRoles()
				if !canCancel {
					details = wamp.Dict{"roles": map[string]any{"callee": map[string]any{}}}
				}
				callee := join(t, r.Gate(), "realm1", details)
				callee.register("com.p", nil)
				caller := joinLimited(t, r.Gate(), 100, nil)
				req := caller.call("com.p", wamp.Dict{"receive_progress": true})
				inv := expect[*wamp.Invocation](callee)
				progress := wamp.Dict{"progress": true}
				callee.send(&wamp.Yield{Request: inv.Request, Options: progress, Args: wamp.List{"first"}})
				expect[*wamp.Result](caller)
				callee.send(&wamp.Yield{Request: inv.Request, Options: progress, Args: wamp.List{big}})
				if e := caller.expectError(wamp.ErrPayloadSizeExceeded); e.Request != req {
					t.Errorf("ERROR for request %d, want %d", e.Request, req)
				}
				if canCancel {
					it := expect[*wamp.Interrupt](callee)
					if it.Request != inv.Request || it.Options[wamp.OptMode] != wamp.CancelKillNoWait || it.Options[wamp.OptReason] != string(wamp.ErrPayloadSizeExceeded) {
						t.Errorf("INTERRUPT %+v", it)
					}
				}
				callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}, Args: wamp.List{"done"}})
				caller.quiet()
				callee.quiet()
				if n := r.Stats().Realms["realm1"].CallsInFlight; n != 0 {
					t.Errorf("%d calls in flight", n)
				}
			})
		})
	}
}

// TestInvocationTooLong: an INVOCATION longer than the callee accepts
// fails the call with ERROR wamp.error.payload_size_exceeded; the callee
// gets nothing and stays registered.
func TestInvocationTooLong(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		callee := joinLimited(t, r.Gate(), 100, nil)
		callee.register("com.p", nil)
		caller := join(t, r.Gate(), "realm1", nil)
		req := caller.call("com.p", wamp.Dict{"timeout": 1000}, big)
		e := caller.expectError(wamp.ErrPayloadSizeExceeded)
		if e.Request != req || !strings.Contains(fmt.Sprint(e.Args), "INVOCATION of") {
			t.Errorf("ERROR %+v", e)
		}
		callee.quiet()
		caller.quiet() // no timeout error later either
		req = caller.call("com.p", nil, "small")
		inv := expect[*wamp.Invocation](callee)
		callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
		if res := expect[*wamp.Result](caller); res.Request != req {
			t.Errorf("RESULT %+v", res)
		}
		if st := r.Stats(); st.TooLong != 1 || st.Realms["realm1"].CallsInFlight != 0 {
			t.Errorf("stats %+v", st)
		}
	})
}

// TestEventTooLong: a subscriber that does not accept an EVENT misses it
// (counted); the others get it, the publisher its PUBLISHED, and the
// subscriber the next events.
func TestEventTooLong(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		short := joinLimited(t, r.Gate(), 100, nil)
		short.subscribe("com.t", nil)
		var others []*client
		for range 2 {
			c := join(t, r.Gate(), "realm1", nil)
			c.subscribe("com.t", nil)
			others = append(others, c)
		}
		pub := join(t, r.Gate(), "realm1", nil)
		req := pub.publish("com.t", wamp.Dict{"acknowledge": true}, big)
		if p := expect[*wamp.Published](pub); p.Request != req {
			t.Errorf("PUBLISHED %+v", p)
		}
		for _, c := range others {
			if ev := expect[*wamp.Event](c); ev.Args[0] != big {
				t.Errorf("EVENT %+v", ev)
			}
		}
		short.quiet()
		pub.publish("com.t", nil, "small")
		for _, c := range append(others, short) {
			if ev := expect[*wamp.Event](c); ev.Args[0] != "small" {
				t.Errorf("EVENT %+v", ev)
			}
		}
		if n := r.Stats().TooLong; n != 1 {
			t.Errorf("TooLong %d, want 1", n)
		}
	})
}

// TestErrorTooLong: an ERROR longer than its receiver accepts, a callee's
// or the router's, is replaced by one with the same URI whose only
// argument says what was cut, or none when even that is too long.
func TestErrorTooLong(t *testing.T) {
	const cut = "the error's details and arguments were cut: ERROR of "
	tests := []struct {
		name   string
		limit  int
		callee bool   // the callee answers with a long ERROR; else the router refuses a long URI
		want   string // the ERROR's only argument starts with it; "": no argument
	}{
		{"callee's", 200, true, cut},
		{"router's", 200, false, cut},
		{"bare", 20, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				callee := join(t, r.Gate(), "realm1", nil)
				callee.register("com.p", nil)
				caller := joinLimited(t, r.Gate(), tt.limit, nil)
				uri, req := wamp.ErrInvalidURI, caller.call("com.p", nil)
				if tt.callee {
					uri = "com.error.long"
					inv := expect[*wamp.Invocation](callee)
					callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: inv.Request,
						Details: wamp.Dict{"why": big}, Error: uri, Args: wamp.List{big}})
				} else {
					expect[*wamp.Invocation](callee)
					req = caller.call(wamp.URI("com. "+big), nil)
				}
				e := caller.expectError(uri)
				if e.Request != req || e.RequestType != wamp.TypeCall || len(e.Details) != 0 || len(e.Kwargs) != 0 {
					t.Errorf("ERROR %+v, want for CALL %d without details or kwargs", e, req)
				}
				if tt.want == "" {
					if len(e.Args) != 0 {
						t.Errorf("ERROR args %v, want none", e.Args)
					}
					return
				}
				tail := fmt.Sprintf("longer than the %d bytes the client accepts", tt.limit)
				msg := ""
				if len(e.Args) == 1 {
					msg, _ = e.Args[0].(string)
				}
				if !strings.HasPrefix(msg, tt.want) || !strings.HasSuffix(msg, tail) {
					t.Errorf("ERROR args %q, want one saying what was cut", e.Args)
				}
			})
		})
	}
}

// TestAbortTooLong: an ABORT whose message is longer than the client
// accepts goes without its details.
func TestAbortTooLong(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		p := newFakePeer(16)
		c := attachAs(t, r.Gate(), p, &limitPeer{fakePeer: p, limit: 100})
		c.send(&wamp.Hello{Realm: wamp.URI("com." + big), Details: wamp.Dict{}})
		if a := c.expectAbort(wamp.ErrNoSuchRealm); len(a.Details) != 0 {
			t.Errorf("ABORT %+v, want no details", a)
		}
	})
}

// TestInternalResultTooLong: the RESULT of a procedure of the router's
// own (the meta API) that the caller does not accept becomes ERROR
// wamp.error.payload_size_exceeded, without its message when even that is
// too long.
func TestInternalResultTooLong(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		caller := joinLimited(t, r.Gate(), 2, nil)
		req := caller.call("wamp.session.count", nil)
		if e := caller.expectError(wamp.ErrPayloadSizeExceeded); e.Request != req || len(e.Args) != 0 {
			t.Errorf("ERROR %+v, want for CALL %d without args", e, req)
		}
		if n := r.Stats().TooLong; n != 2 {
			t.Errorf("TooLong %d, want 2 (the RESULT, then the ERROR's message)", n)
		}
	})
}

// TestWelcomeTooLong: a WELCOME longer than the client accepts (a large
// authextra) ends the session with ABORT wamp.error.payload_size_exceeded
// rather than leave the client waiting; the session leaves its realm.
func TestWelcomeTooLong(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		p := newFakePeer(16)
		c := attachAs(t, r.Gate(), p, &limitPeer{fakePeer: p, limit: 100, welcome: true})
		c.send(&wamp.Hello{Realm: "realm1", Details: clientRoles()})
		a := c.expectAbort(wamp.ErrPayloadSizeExceeded)
		if msg, _ := a.Details[wamp.KeyMessage].(string); !strings.HasPrefix(msg, "WELCOME of ") {
			t.Errorf("ABORT %+v, want a message about the WELCOME", a)
		}
		synctest.Wait()
		if st := r.Stats(); st.Sessions != 0 || st.Realms["realm1"].Sessions != 0 || st.TooLong != 1 {
			t.Errorf("stats %+v", st)
		}
	})
}
