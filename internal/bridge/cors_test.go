package bridge

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// On a path with auth every answer exposes WWW-Authenticate to a page on
// another origin, so that it can read a 401's challenge; a path without
// auth exposes nothing.
func TestCORSExposesChallenge(t *testing.T) {
	e := newActsForEnv(t)
	ident := Access{Identity: apiKeys(t)}
	origin := http.Header{"Origin": {"https://app.example"}, "Content-Type": {"application/json"}}
	es, err := NewEventStream(e.bridge, EventStreamOptions{Identity: ident.Identity})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		h      http.Handler
		q      httpReq
		status int
		expose string
	}{
		{"caller 401", newCaller(t, e.bridge, CallerOptions{Access: ident}), httpReq{body: `{}`, header: origin}, 401, "WWW-Authenticate"},
		{"caller preflight", newCaller(t, e.bridge, CallerOptions{Access: ident}), httpReq{method: "OPTIONS", header: origin}, 200, "WWW-Authenticate"},
		{"publisher 401", newPublisher(t, e.bridge, PublisherOptions{Access: ident}), httpReq{body: `{}`, header: origin}, 401, "WWW-Authenticate"},
		{"event stream 401", es, httpReq{method: "GET", query: "topic=com.user.t", header: origin}, 401, "WWW-Authenticate"},
		{"api 401", newAPI(t, e.bridge, APIOptions{Access: ident}), httpReq{method: "GET", path: "/users/me", header: origin}, 401, "WWW-Authenticate"},
		{"caller without auth", newCaller(t, e.bridge, CallerOptions{}), httpReq{body: `{}`, header: origin}, 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(tt.h, tt.q)
			if w.Code != tt.status {
				t.Fatalf("status %d %s, want %d", w.Code, w.Body, tt.status)
			}
			if got := w.Header().Get("Access-Control-Expose-Headers"); got != tt.expose {
				t.Errorf("Access-Control-Expose-Headers %q, want %q", got, tt.expose)
			}
			if got := w.Header().Get("Access-Control-Allow-Origin"); got != "https://app.example" {
				t.Errorf("Access-Control-Allow-Origin %q", got)
			}
		})
	}
}

// WWW-Authenticate is merged into an expose list already there.
func TestExpose(t *testing.T) {
	tests := []struct {
		have []string
		want string
	}{
		{nil, "WWW-Authenticate"},
		{[]string{"X-Total-Count"}, "X-Total-Count, WWW-Authenticate"},
		{[]string{"X-A, X-B", "X-C"}, "X-A, X-B, X-C, WWW-Authenticate"},
		{[]string{"x-a, www-authenticate"}, "x-a, www-authenticate"},
		{[]string{"*"}, "*"},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.have != nil {
			h["Access-Control-Expose-Headers"] = tt.have
		}
		expose(h, exposeAuth)
		if got := strings.Join(h.Values("Access-Control-Expose-Headers"), ", "); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.have, got, tt.want)
		}
	}
}

// An API route's response result that sets its own expose list gets
// WWW-Authenticate added to it on a path with auth.
func TestAPIResponseExposeMerged(t *testing.T) {
	e := apiEnv(t, true)
	e.register("com.user.page", func(context.Context, *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: wamp.List{wamp.Dict{"code": 200, "content": "hi",
			"headers": wamp.Dict{"Access-Control-Expose-Headers": "X-Total-Count"}}}}, nil
	})
	a := newAPI(t, e.bridge, APIOptions{Access: Access{Identity: apiKeys(t)}, Routes: []APIRoute{
		{Method: "GET", Path: "/page", Procedure: "com.user.page", Result: ResultResponse},
	}})
	w := serveAPI(a, "GET", "/page", "", bearer("k-alice"))
	if got := w.Header().Values("Access-Control-Expose-Headers"); w.Code != 200 || len(got) != 1 || got[0] != "X-Total-Count, WWW-Authenticate" {
		t.Errorf("%d %s: Access-Control-Expose-Headers %q", w.Code, w.Body, got)
	}
}
