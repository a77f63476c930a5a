package auth

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// authorizeCall records one call of a fake authorizer.
type authorizeCall struct {
	session wamp.Dict
	uri     wamp.URI
	action  Action
	options wamp.Dict
}

func TestDynamicAuthorizer(t *testing.T) {
	tests := []struct {
		name    string
		res     any
		err     error
		want    Permission
		wantErr bool
	}{
		{name: "true", res: true, want: Permission{Allow: true}},
		{name: "false", res: false, want: Permission{}},
		{name: "dict", res: wamp.Dict{"allow": true, "disclose": true, "cache": true}, want: Permission{Allow: true, Disclose: true, Cache: true}},
		{name: "dict deny cached", res: wamp.Dict{"allow": false, "cache": true}, want: Permission{Cache: true}},
		{name: "no allow", res: wamp.Dict{"cache": true}, wantErr: true},
		{name: "unknown key", res: wamp.Dict{"allow": true, "ttl": true}, wantErr: true},
		{name: "not a boolean", res: wamp.Dict{"allow": "yes"}, wantErr: true},
		{name: "a string", res: "allow", wantErr: true},
		{name: "nothing", res: nil, wantErr: true},
		{name: "error", err: wamp.Errorf("com.example.oops", "oops"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewDynamicAuthorizer(DynamicAuthorizerOptions{Authorize: func(context.Context, wamp.Dict, wamp.URI, Action, wamp.Dict) (any, error) {
				return tt.res, tt.err
			}})
			got, err := a.Authorize(&Identity{AuthRole: "app"}, ActionCall, "com.example.add2", nil)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("Authorize = %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestDynamicAuthorizerAsks: the authorizer gets Crossbar's session
// details, the URI, the action and the request's options ({} for none).
func TestDynamicAuthorizerAsks(t *testing.T) {
	var calls []authorizeCall
	a := NewDynamicAuthorizer(DynamicAuthorizerOptions{Authorize: func(_ context.Context, s wamp.Dict, uri wamp.URI, action Action, opts wamp.Dict) (any, error) {
		calls = append(calls, authorizeCall{s, uri, action, opts})
		return true, nil
	}})
	id := &Identity{AuthID: "alice", AuthRole: "app", AuthMethod: "ticket", AuthProvider: "dynamic",
		AuthExtra: wamp.Dict{"x": 1}, Session: 7, Peer: wamp.PeerInfo{Transport: "rawsocket", Serializer: "cbor", RemoteAddr: "10.1.2.3:4"}}
	if _, err := a.Authorize(id, ActionSubscribe, "com.example.", wamp.Dict{"match": "prefix"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Authorize(id, ActionPublish, "com.example.t", nil); err != nil {
		t.Fatal(err)
	}
	session := wamp.Dict{"session": uint64(7), "authid": "alice", "authrole": "app", "authmethod": "ticket", "authprovider": "dynamic",
		"authextra": wamp.Dict{"x": 1}, "transport": wamp.Dict{"type": "rawsocket", "protocol": "wamp.2.cbor", "peer": "tcp4:10.1.2.3:4"}}
	want := []authorizeCall{
		{session, "com.example.", ActionSubscribe, wamp.Dict{"match": "prefix"}},
		{session, "com.example.t", ActionPublish, wamp.Dict{}},
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls = %+v,\nwant %+v", calls, want)
	}
}

// TestDynamicAuthorizerTimeout: an authorizer that does not answer in
// time fails the authorization (as unavailable) after the timeout.
func TestDynamicAuthorizerTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := NewDynamicAuthorizer(DynamicAuthorizerOptions{Timeout: time.Second, Authorize: func(ctx context.Context, _ wamp.Dict, _ wamp.URI, _ Action, _ wamp.Dict) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}})
		start := time.Now()
		p, err := a.Authorize(&Identity{}, ActionCall, "x", nil)
		if p.Allow || !errors.Is(err, ErrUnavailable) || time.Since(start) != time.Second {
			t.Errorf("Authorize = %+v, %v after %v; want unavailable after 1s", p, err, time.Since(start))
		}
	})
	if _, err := NewDynamicAuthorizer(DynamicAuthorizerOptions{}).Authorize(&Identity{}, ActionCall, "x", nil); err == nil {
		t.Error("an authorizer without a function authorizes")
	}
}
