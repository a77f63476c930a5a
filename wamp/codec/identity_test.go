package codec

import (
	"errors"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// TestActingNotEncoded: an identity (wamp.Acting) or an audience
// (wamp.Addressed) exists only in the process: every codec refuses to
// encode them, so that neither can reach or come from the network.
func TestActingNotEncoded(t *testing.T) {
	call := &wamp.Call{Request: 1, Options: wamp.Dict{}, Procedure: "com.example.p"}
	msgs := []wamp.Message{
		&wamp.Acting{Message: call, Identity: &wamp.Identity{AuthID: "alice", AuthRole: "admin"}},
		&wamp.Addressed{Event: &wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{}}, Audience: &wamp.Audience{}},
	}
	for _, c := range []Codec{JSON, Msgpack, CBOR, UBJSON} {
		for _, m := range msgs {
			if b, err := c.Encode(m); !errors.Is(err, ErrEncode) {
				t.Errorf("%T: Encode = %q, %v; want ErrEncode", m, b, err)
			}
		}
	}
}
