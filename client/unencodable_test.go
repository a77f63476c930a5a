package client_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// TestUnencodableOverSocket: over a JSON socket, a value the serializer
// cannot encode never leaves a call waiting. The caller's own CALL or
// PUBLISH fails at once with an error wrapping wamp.ErrUnencodable; a
// callee's result that does not encode is answered with ERROR
// wamp.error.invalid_argument instead, an error that does not encode with
// its URI alone; the sessions stay open.
func TestUnencodableOverSocket(t *testing.T) {
	tr := newTestRouter(t)
	for _, scheme := range []string{"ws", "rs"} {
		t.Run(scheme, func(t *testing.T) {
			opts := client.DialOptions{Serializer: "json"}
			callee := join(t, tr.urls[scheme], opts, client.Config{Realm: realm})
			proc := wamp.URI("test.unencodable." + scheme)
			register(t, callee, proc+".result", wamp.List{math.NaN()})
			_, err := callee.Register(ctx(t), proc+".error", func(context.Context, *client.Invocation) (*client.Result, error) {
				return nil, &wamp.RequestError{URI: "test.error.odd", Args: wamp.List{math.Inf(1)}}
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			caller := join(t, tr.urls[scheme], opts, client.Config{Realm: realm})
			if _, err := caller.Call(ctx(t), proc+".result", wamp.List{make(chan int)}, nil); !errors.Is(err, wamp.ErrUnencodable) {
				t.Errorf("Call with a channel: %v, want wamp.ErrUnencodable", err)
			}
			if _, err := caller.Publish(ctx(t), "test.topic", wamp.List{math.NaN()}, nil, wamp.Dict{"acknowledge": true}); !errors.Is(err, wamp.ErrUnencodable) {
				t.Errorf("Publish with NaN: %v, want wamp.ErrUnencodable", err)
			}
			for suffix, want := range map[wamp.URI]wamp.URI{".result": wamp.ErrInvalidArgument, ".error": "test.error.odd"} {
				_, err := caller.Call(ctx(t), proc+suffix, nil, nil)
				if e, ok := errors.AsType[*wamp.RequestError](err); !ok || e.URI != want {
					t.Errorf("Call(%s): %v, want ERROR %s", proc+suffix, err, want)
				}
			}
			if callee.Err() != nil || caller.Err() != nil {
				t.Errorf("sessions ended: callee %v, caller %v", callee.Err(), caller.Err())
			}
		})
	}
}
