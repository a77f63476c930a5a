package bridge

import (
	"net/http"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/bridge/httpauth"
	"github.com/junction-wamp/junction/wamp"
)

// TestEventStreamIdentity: a stream subscribes for its request's
// identity: the router's permissions for its role decide (403), the
// publications' eligible and exclude lists apply to it, and credentials
// are required (401); with a resolver that reads it (QueryToken), the
// credential may come as access_token.
func TestEventStreamIdentity(t *testing.T) {
	e := newActsForEnv(t)
	withQuery, err := httpauth.New(httpauth.Options{QueryToken: true, APIKeys: map[string]httpauth.Principal{
		"k-alice": {AuthID: "alice", AuthRole: "user"},
		"k-root":  {AuthID: "root", AuthRole: "backend"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	se := streamEnvOf(t, e, EventStreamOptions{Identity: withQuery})
	alice := se.openAs("topic=com.user.news", "Bearer k-alice")
	root := se.openAs("topic=com.user.news", "Bearer k-root")
	fromQuery := se.open("topic=com.user.news&access_token=k-alice")

	se.publish("com.user.news", wamp.List{"for alice"}, nil, wamp.Dict{wamp.OptEligibleAuthID: []any{"alice"}})
	se.publish("com.user.news", wamp.List{"not for alice"}, nil, wamp.Dict{wamp.OptExcludeAuthID: []any{"alice"}})
	se.publish("com.user.news", wamp.List{"all"}, nil, nil)
	for name, tt := range map[string]struct {
		c    *sseClient
		want []string
	}{"alice": {alice, []string{"for alice", "all"}}, "root": {root, []string{"not for alice", "all"}},
		"query token": {fromQuery, []string{"for alice", "all"}}} {
		for _, want := range tt.want {
			if ev := tt.c.next(); ev.data != `{"args":["`+want+`"],"kwargs":{}}` {
				t.Errorf("stream %s: got %s, want %s", name, ev.data, want)
			}
		}
	}

	noQueryToken, err := NewEventStream(e.bridge, EventStreamOptions{Identity: apiKeys(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		h      http.Handler
		q      httpReq
		status int
		body   string
	}{
		{"refused by role", se.es, httpReq{method: "GET", query: "topic=com.example.t", header: http.Header{"Authorization": {"Bearer k-alice"}}},
			403, `{"error":"wamp.error.not_authorized"`},
		{"no credentials", se.es, httpReq{method: "GET", query: "topic=com.user.news"}, 401, `{"error":`},
		{"unknown key", se.es, httpReq{method: "GET", query: "topic=com.user.news&access_token=k-eve"}, 401, `{"error":`},
		{"query token not allowed", noQueryToken, httpReq{method: "GET", query: "topic=com.user.news&access_token=k-alice"}, 401, `{"error":`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := do(tt.h, tt.q)
			if w.Code != tt.status || !strings.HasPrefix(w.Body.String(), tt.body) {
				t.Errorf("got %d %s, want %d %s...", w.Code, w.Body, tt.status, tt.body)
			}
			if tt.status == 401 && w.Header().Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}
