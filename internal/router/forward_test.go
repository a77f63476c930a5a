package router

import (
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// origin is the forward_for a router link sends: the original publisher
// or caller on the other router.
func origin() []any {
	return []any{wamp.Dict{"session": uint64(77), "authid": "bob", "authrole": "user"}}
}

// forwardedDetails are the details the receiver must get for a message
// forwarded by the session linkID (alice/user): the original sender
// disclosed, and forward_for with the link appended.
func forwardedDetails(prefix string, linkID wamp.ID) wamp.Dict {
	return wamp.Dict{
		prefix:               uint64(77),
		prefix + "_authid":   "bob",
		prefix + "_authrole": "user",
		"forward_for": []any{
			wamp.Dict{"session": uint64(77), "authid": "bob", "authrole": "user"},
			wamp.Dict{"session": uint64(linkID), "authid": "alice", "authrole": "user"},
		},
	}
}

func TestForwardForPublish(t *testing.T) {
	tests := []struct {
		name  string
		topic wamp.URI
		want  func(link wamp.ID) wamp.Dict
	}{
		{"disclosed", "disclosed.t", func(link wamp.ID) wamp.Dict { return forwardedDetails("publisher", link) }},
		{"not disclosed", "com.t", func(wamp.ID) wamp.Dict { return wamp.Dict{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: denyPrivate}}}, func(t *testing.T, r *Router) {
				sub := join(t, r.Gate(), "realm1", nil)
				sub.subscribe(tt.topic, nil)
				link := ticketJoin(t, r.Gate(ticketAuth{role: "user"}), "realm1", "alice")
				link.publish(tt.topic, wamp.Dict{"forward_for": origin()})
				if d := expect[*wamp.Event](sub).Details; !reflect.DeepEqual(d, tt.want(link.id)) {
					t.Errorf("details %v, want %v", d, tt.want(link.id))
				}
			})
		})
	}
}

func TestForwardForCall(t *testing.T) {
	bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: denyPrivate}}}, func(t *testing.T, r *Router) {
		callee := join(t, r.Gate(), "realm1", nil)
		callee.register("disclosed.p", nil)
		link := ticketJoin(t, r.Gate(ticketAuth{role: "user"}), "realm1", "alice")
		link.call("disclosed.p", wamp.Dict{"forward_for": origin()})
		if d := expect[*wamp.Invocation](callee).Details; !reflect.DeepEqual(d, forwardedDetails("caller", link.id)) {
			t.Errorf("details %v", d)
		}
	})
}

func TestForwardForInvalid(t *testing.T) {
	bad := []any{
		"x",
		[]any{"x"},
		[]any{wamp.Dict{"session": uint64(1), "authid": "a"}},
		[]any{wamp.Dict{"session": "1", "authid": "a", "authrole": "r"}},
		[]any{wamp.Dict{"session": uint64(wamp.MaxID + 1), "authid": "a", "authrole": "r"}},
	}
	for _, ff := range bad {
		bubble(t, Options{}, func(t *testing.T, r *Router) {
			c := join(t, r.Gate(), "realm1", nil)
			c.register("com.p", nil)
			c.publish("com.t", wamp.Dict{"acknowledge": true, "forward_for": ff})
			c.expectError(wamp.ErrInvalidArgument)
			c.call("com.p", wamp.Dict{"forward_for": ff})
			c.expectError(wamp.ErrInvalidArgument)
		})
	}
}
