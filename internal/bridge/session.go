package bridge

import (
	"context"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// Session is the embedded WAMP session a service acts through. A
// *client.Client (which rejoins by itself after the router closed the
// session) satisfies it. Implementations must be safe for concurrent use.
type Session interface {
	Call(ctx context.Context, procedure wamp.URI, args wamp.List, kwargs wamp.Object,
		opts ...client.CallOption) (*client.Result, error)
	// Publish publishes; with opts[acknowledge] true it returns the
	// publication ID.
	Publish(ctx context.Context, topic wamp.URI, args wamp.List, kwargs wamp.Object, opts wamp.Dict) (wamp.ID, error)
	// Session returns the current session, nil while disconnected.
	Session() *client.Session
}

var _ Session = (*client.Client)(nil)

// available reports whether s has a live session now. A service answers 503
// at once when it has none, rather than wait for the client to rejoin.
func available(s Session) bool {
	cs := s.Session()
	return cs != nil && cs.Err() == nil
}
