package bridge

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/bridge/httpauth"
	"github.com/junction-wamp/junction/wamp"
)

// apiKeys resolve "k-alice" to alice with role "user", and "k-root" to
// root with role "backend"; credentials are required.
func apiKeys(t testing.TB) *httpauth.Resolver {
	t.Helper()
	r, err := httpauth.New(httpauth.Options{APIKeys: map[string]httpauth.Principal{
		"k-alice": {AuthID: "alice", AuthRole: "user"},
		"k-root":  {AuthID: "root", AuthRole: "backend"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func bearer(key string) http.Header {
	return http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + key}}
}

// whoami answers the caller's disclosed authid and authrole.
func whoami(_ context.Context, inv *client.Invocation) (*client.Result, error) {
	return &client.Result{Args: wamp.List{inv.Details[wamp.OptCallerAuthID], inv.Details[wamp.OptCallerAuthRole]}}, nil
}

// errorJSON is an error answer's body.
type errorJSON struct {
	Error  string         `json:"error"`
	Args   []any          `json:"args"`
	Kwargs map[string]any `json:"kwargs"`
}

func decodeError(t *testing.T, body []byte) errorJSON {
	t.Helper()
	var e errorJSON
	if err := json.Unmarshal(body, &e); err != nil || e.Args == nil || e.Kwargs == nil {
		t.Fatalf("error body %s: %v", body, err)
	}
	return e
}

// TestCallerIdentity: a call runs with the request's identity: the
// router's permissions for its role decide (a refusal is 403 with the
// WAMP error), and the callee sees its authid and authrole.
func TestCallerIdentity(t *testing.T) {
	e := newActsForEnv(t)
	e.register("com.user.whoami", whoami)
	e.register("com.example.whoami", whoami)
	h, err := NewCaller(e.bridge, CallerOptions{Access: Access{Identity: apiKeys(t)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, key, procedure string
		status               int
		body                 string
	}{
		{"allowed, disclosed", "k-alice", "com.user.whoami", 200, `{"args":["alice","user"]}`},
		{"another role", "k-root", "com.example.whoami", 200, `{"args":[null,null]}`}, // backend discloses nothing
		{"refused by role", "k-alice", "com.example.whoami", 403, ""},
		{"unknown key", "k-eve", "com.user.whoami", 401, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := do(h, httpReq{body: `{"procedure":"` + tt.procedure + `"}`, header: bearer(tt.key)})
			if w.Code != tt.status {
				t.Fatalf("%d %s, want %d", w.Code, w.Body, tt.status)
			}
			switch tt.status {
			case 200:
				if w.Body.String() != tt.body {
					t.Fatalf("body %s, want %s", w.Body, tt.body)
				}
			case 403:
				if e := decodeError(t, w.Body.Bytes()); e.Error != string(wamp.ErrNotAuthorized) {
					t.Fatalf("403 body %+v", e)
				}
			case 401:
				e := decodeError(t, w.Body.Bytes())
				if e.Error != string(wamp.ErrAuthenticationFailed) || w.Header().Get("WWW-Authenticate") == "" {
					t.Fatalf("401 %v body %+v", w.Header(), e)
				}
			}
		})
	}
}

// TestCallerNoCredentials: 401 with WWW-Authenticate, before the body is
// read (the connection is closed after the answer).
func TestCallerNoCredentials(t *testing.T) {
	e := newActsForEnv(t)
	h, err := NewCaller(e.bridge, CallerOptions{Access: Access{Identity: apiKeys(t)}})
	if err != nil {
		t.Fatal(err)
	}
	w := do(h, httpReq{body: `{"procedure":"com.user.whoami"}`, header: http.Header{"Content-Type": {"application/json"}}})
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") != `Bearer realm="junction"` || w.Header().Get("Connection") != "close" {
		t.Fatalf("%d %v %s", w.Code, w.Header(), w.Body)
	}
	want := `{"error":"wamp.error.authentication_failed","args":["Authentication required."],"kwargs":{}}`
	if w.Body.String() != want {
		t.Fatalf("body %s, want %s", w.Body, want)
	}
}

// TestPublisherIdentity: a publication runs with the request's identity,
// which the subscriber sees.
func TestPublisherIdentity(t *testing.T) {
	e := newActsForEnv(t)
	events := e.subscribe("com.user.news")
	h, err := NewPublisher(e.bridge, PublisherOptions{Access: Access{Identity: apiKeys(t)}})
	if err != nil {
		t.Fatal(err)
	}
	w := do(h, httpReq{body: `{"topic":"com.user.news","args":[1]}`, header: bearer("k-alice")})
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	ev := waitFor(t, events, "event")
	if ev.Details[wamp.OptPublisherAuthID] != "alice" || ev.Details[wamp.OptPublisherAuthRole] != "user" {
		t.Fatalf("event details %v, want alice/user", ev.Details)
	}
	w = do(h, httpReq{body: `{"topic":"com.example.news"}`, header: bearer("k-alice")})
	if w.Code != 403 || decodeError(t, w.Body.Bytes()).Error != string(wamp.ErrNotAuthorized) {
		t.Fatalf("refused publish: %d %s", w.Code, w.Body)
	}
}

// TestErrorStatus: with error_status, WAMP errors get the table's status
// (application errors 500, the map's rows first); the body keeps the
// error, args and kwargs. Off, they are 200 as in Crossbar.
func TestErrorStatus(t *testing.T) {
	e := newEnv(t)
	e.register("com.example.fail", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return nil, &wamp.RequestError{URI: wamp.URI(inv.Args[0].(string)), Args: wamp.List{"why"}, Kwargs: wamp.Object{{Key: "k", Value: 1}}}
	})
	on := ErrorStatus{On: true, Statuses: map[wamp.URI]int{"com.myapp.error.not_found": 404, wamp.ErrInvalidArgument: 422}}
	for _, tt := range []struct {
		es     ErrorStatus
		uri    string
		status int
	}{
		{on, "com.myapp.error.not_found", 404},
		{on, "com.myapp.error.other", 500},
		{on, string(wamp.ErrInvalidArgument), 422},
		{on, string(wamp.ErrNotAuthorized), 403},
		{on, string(wamp.ErrCanceled), 409},
		{on, string(wamp.ErrNoAvailableCallee), 503},
		{on, string(wamp.ErrPayloadSizeExceeded), 502},
		{ErrorStatus{}, string(wamp.ErrPayloadSizeExceeded), 200},
		{ErrorStatus{On: true}, string(wamp.ErrInvalidArgument), 400},
		{ErrorStatus{}, "com.myapp.error.not_found", 200},
		{ErrorStatus{}, string(wamp.ErrNotAuthorized), 200},
	} {
		h, err := NewCaller(e.bridge, CallerOptions{Access: Access{ErrorStatus: tt.es}})
		if err != nil {
			t.Fatal(err)
		}
		w := do(h, httpReq{body: `{"procedure":"com.example.fail","args":["` + tt.uri + `"]}`, header: ct("application/json")})
		want := `{"error":"` + tt.uri + `","args":["why"],"kwargs":{"k":1}}`
		if w.Code != tt.status || w.Body.String() != want {
			t.Errorf("%s (on %v): %d %s, want %d %s", tt.uri, tt.es.On, w.Code, w.Body, tt.status, want)
		}
	}
	// The router's own errors go through the same table.
	h, _ := NewCaller(e.bridge, CallerOptions{Access: Access{ErrorStatus: ErrorStatus{On: true}}})
	if w := do(h, httpReq{body: `{"procedure":"com.example.none"}`, header: ct("application/json")}); w.Code != 404 {
		t.Errorf("no_such_procedure: %d %s, want 404", w.Code, w.Body)
	}
	if _, err := NewCaller(e.bridge, CallerOptions{Access: Access{ErrorStatus: ErrorStatus{On: true, Statuses: map[wamp.URI]int{"a.b": 200}}}}); err == nil {
		t.Error("NewCaller accepted status 200 in error_status")
	}
}

// TestRemoteAnswer: every row of the status table under error_status,
// Crossbar's 200 without it (but the gateway failures), the map's rows
// first, and a path with auth answering the router's refusals 403
// whatever error_status says.
func TestRemoteAnswer(t *testing.T) {
	for _, row := range statusTable {
		on := remoteAnswer{status: ErrorStatus{On: true}, compat: true}
		if got := on.statusOf(row.uri); got != row.status {
			t.Errorf("on: %s = %d, want %d", row.uri, got, row.status)
		}
		off, want := remoteAnswer{compat: true}, http.StatusOK
		if !row.compat {
			want = row.status
		}
		if got := off.statusOf(row.uri); got != want {
			t.Errorf("off: %s = %d, want %d", row.uri, got, want)
		}
	}
	for _, tt := range []struct {
		ra   remoteAnswer
		uri  wamp.URI
		want int
	}{
		{remoteAnswer{status: ErrorStatus{On: true}, compat: true}, "com.example.error.x", 500},
		{remoteAnswer{status: ErrorStatus{On: true, Statuses: map[wamp.URI]int{"com.example.error.x": 418}}, compat: true}, "com.example.error.x", 418},
		{remoteAnswer{compat: false}, "com.example.error.x", 500}, // the Webhook
		{remoteAnswer{compat: true, auth: true}, wamp.ErrNotAuthorized, 403},
		{remoteAnswer{compat: true, auth: true}, wamp.ErrAuthorizationFailed, 403},
		{remoteAnswer{compat: true, auth: true}, wamp.ErrNoSuchProcedure, 200},
		{remoteAnswer{status: ErrorStatus{On: true, Statuses: map[wamp.URI]int{wamp.ErrNotAuthorized: 404}}, compat: true, auth: true}, wamp.ErrNotAuthorized, 403},
	} {
		if got := tt.ra.statusOf(tt.uri); got != tt.want {
			t.Errorf("%+v: %s = %d, want %d", tt.ra, tt.uri, got, tt.want)
		}
	}
}
