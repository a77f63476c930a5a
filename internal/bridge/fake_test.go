package bridge

import (
	"context"
	"sync"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// fakeSession answers calls and publishes from functions and records them.
// Session() is a real joined session unless down is set.
type fakeSession struct {
	live    *client.Client
	down    bool
	call    func(procedure wamp.URI, args wamp.List, kwargs wamp.Object) (*client.Result, error)
	publish func(topic wamp.URI, args wamp.List, kwargs wamp.Object, opts wamp.Dict) (wamp.ID, error)

	mu    sync.Mutex
	calls []recorded
}

type recorded struct {
	uri    wamp.URI
	args   wamp.List
	kwargs wamp.Object
	opts   wamp.Dict
}

func newFake(t *testing.T) *fakeSession {
	return &fakeSession{live: newEnv(t).bridge}
}

func (f *fakeSession) Call(ctx context.Context, procedure wamp.URI, args wamp.List, kwargs wamp.Object,
	opts ...client.CallOption) (*client.Result, error) {
	f.record(recorded{procedure, args, kwargs, nil})
	if f.call == nil {
		return &client.Result{Args: args, Kwargs: kwargs}, nil
	}
	return f.call(procedure, args, kwargs)
}

func (f *fakeSession) Publish(ctx context.Context, topic wamp.URI, args wamp.List, kwargs wamp.Object, opts wamp.Dict) (wamp.ID, error) {
	f.record(recorded{topic, args, kwargs, opts})
	if f.publish == nil {
		return 42, nil
	}
	return f.publish(topic, args, kwargs, opts)
}

func (f *fakeSession) Session() *client.Session {
	if f.down {
		return nil
	}
	return f.live.Session()
}

func (f *fakeSession) record(r recorded) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r)
}

func (f *fakeSession) recorded() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.calls...)
}

var _ Session = (*fakeSession)(nil)

func wampURI(s string) wamp.URI { return wamp.URI(s) }
