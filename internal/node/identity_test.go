package node

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// identityDoc is a node whose caller takes API keys and HTTP Basic
// against the ticket principals of /ws, with error_status; whose
// publisher takes HS256 JWTs; role "user" may call and publish under
// com.user. (disclosed), "backend" (the WebSocket clients of /backend)
// anything.
const identityDoc = `{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1", "roles": [
		{"name": "bridge", "permissions": [{"uri": "com.example.", "match": "prefix", "allow": {"call": true, "publish": true}}]},
		{"name": "user", "permissions": [{"uri": "com.user.", "match": "prefix", "allow": {"call": true, "publish": true},
			"disclose": {"caller": true, "publisher": true}}]},
		{"name": "backend", "allow-by-default": true}]}],
	"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
		"ws": {"type": "websocket", "auth": {"ticket": {"type": "static", "principals": {"alice": {"ticket": "pw-alice", "role": "user"}}}}},
		"backend": {"type": "websocket", "auth": {"anonymous": {"type": "static", "role": "backend"}}},
		"call": {"type": "caller", "realm": "realm1", "role": "bridge", "options": {"error_status": true,
			"auth": {"api_keys": {"k-alice": {"authid": "alice", "authrole": "user"}}, "basic": {"principals_from": "ws"}}}},
		"publish": {"type": "publisher", "realm": "realm1", "role": "bridge", "options": {
			"auth": {"bearer": {"jwt": {"algorithms": ["HS256"], "secret": "${JWT_SECRET}", "audience": "api", "authrole": "user"}}}}}}}]}]}`

const identitySecret = "a secret of 32 bytes at least!!!"

// TestIdentityEndToEnd: the node's caller and publisher run each request
// with its credentials' identity: a real callee and subscriber see it, the
// realm's permissions for its role decide.
func TestIdentityEndToEnd(t *testing.T) {
	n := startWith(t, parse(t, identityDoc, map[string]string{"JWT_SECRET": identitySecret}), Options{Dir: t.TempDir()})
	addr := address(t, n, "workers[0].transports[0]")
	backend := mustWS(t, "ws://"+addr+"/backend", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	whoami := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: wamp.List{inv.Details[wamp.OptCallerAuthID], inv.Details[wamp.OptCallerAuthRole]}}, nil
	}
	for _, p := range []wamp.URI{"com.user.whoami", "com.example.whoami"} {
		if _, err := backend.Register(testCtx(t), p, whoami, nil); err != nil {
			t.Fatal(err)
		}
	}
	events := make(chan *client.Event, 4)
	if _, err := backend.Subscribe(testCtx(t), "com.user.news", func(ev *client.Event) { events <- ev }, nil); err != nil {
		t.Fatal(err)
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:pw-alice"))
	for _, tt := range []struct {
		name, path, authz, body string
		status                  int
		want                    string
	}{
		{"basic", "/call", basic, `{"procedure": "com.user.whoami"}`, 200, `{"args":["alice","user"]}`},
		{"api key", "/call", "Bearer k-alice", `{"procedure": "com.user.whoami"}`, 200, `{"args":["alice","user"]}`},
		{"refused by role", "/call", "Bearer k-alice", `{"procedure": "com.example.whoami"}`, 403, `"error":"wamp.error.not_authorized"`},
		{"error_status", "/call", "Bearer k-alice", `{"procedure": "com.user.none"}`, 404, `"error":"wamp.error.no_such_procedure"`},
		{"wrong password", "/call", "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:nope")), `{"procedure": "com.user.whoami"}`, 401,
			`{"error":"wamp.error.authentication_failed","args":["Invalid user name or password."],"kwargs":{}}`},
		{"no credentials", "/call", "", `{"procedure": "com.user.whoami"}`, 401, `"args":["Authentication required."]`},
		{"jwt", "/publish", "Bearer " + identityToken(t, "api"), `{"topic": "com.user.news", "options": {"acknowledge": true}}`, 200, `{"id":`},
		{"jwt wrong audience", "/publish", "Bearer " + identityToken(t, "other"), `{"topic": "com.user.news"}`, 401, `"error":"wamp.error.authentication_failed"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", "http://"+addr+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			if tt.authz != "" {
				req.Header.Set("Authorization", tt.authz)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.want) {
				t.Fatalf("%d %s, want %d with %s", resp.StatusCode, body, tt.status, tt.want)
			}
			if tt.status == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Fatalf("401 without WWW-Authenticate: %v", resp.Header)
			}
		})
	}
	select {
	case ev := <-events:
		if ev.Details[wamp.OptPublisherAuthID] != "alice" || ev.Details[wamp.OptPublisherAuthRole] != "user" {
			t.Fatalf("event details %v, want alice/user", ev.Details)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
}

// identityToken is alice's HS256 token for audience aud.
func identityToken(t *testing.T, aud string) string {
	return aliceToken(t, jose.SigningKey{Algorithm: jose.HS256, Key: []byte(identitySecret)}, aud)
}

// aliceToken is a token of alice for audience aud, valid for an hour,
// signed with key.
func aliceToken(t *testing.T, key jose.SigningKey, aud string) string {
	t.Helper()
	s, err := jose.NewSigner(key, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(jwt.Claims{Subject: "alice", Audience: jwt.Audience{aud},
		Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestIdentityProxyRefused: a proxy worker's bridge session reaches its
// backend router over the network, where no identity can travel: auth
// there is refused when the node is built.
func TestIdentityProxyRefused(t *testing.T) {
	doc := `{"version": 2, "workers": [
		{"type": "router", "realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		 "transports": [{"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"}, "auth": {"anonymous-proxy": {"type": "static"}}}]},
		{"type": "proxy",
		 "connections": {"local": {"transport": {"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"}, "url": "rs://localhost"}}},
		 "routes": {"realm1": {"anonymous": "local"}},
		 "transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"call": {"type": "caller", "realm": "realm1", "role": "anonymous",
				"options": {"auth": {"api_keys": {"k": {"authid": "a", "authrole": "anonymous"}}}}}}}]}]}`
	_, err := New(parse(t, doc, nil), Options{Dir: t.TempDir()})
	want := "workers[1].transports[0].paths.call.options.auth: not available in a proxy worker"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("New: %v, want %q", err, want)
	}
}
