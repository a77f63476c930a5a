package bridge

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// env is a router with realm "realm1" and two reconnecting clients over
// local pairs: the bridge's embedded session (role "bridge": may call,
// publish and subscribe under com.example.) and a backend (role "backend": may do
// anything) that plays callee and subscriber.
type env struct {
	t       testing.TB
	router  *router.Router
	bridge  *client.Client
	backend *client.Client
	// hold, when not nil, makes the bridge's redials wait for a value.
	hold chan struct{}
	// actsFor: the bridge's gate lets it act for the requests' identities
	// (router.GateOptions.ActsFor), as the node's does.
	actsFor bool
	joined  chan wamp.ID // bridge session IDs, one per join
	left    chan struct{}
}

func newEnv(t *testing.T) *env { return newEnvTB(t) }

// newFuzzEnv is the bridge client of an env for a fuzz target.
func newFuzzEnv(f *testing.F) *client.Client { return newEnvTB(f).bridge }

func newEnvTB(t testing.TB) *env { return newEnvOf(t, false) }

// newActsForEnv is an env whose bridge session acts for the requests'
// identities; role "user" may call, publish and subscribe under
// com.user. and has its calls and publications disclosed.
func newActsForEnv(t testing.TB) *env { return newEnvOf(t, true) }

func newEnvOf(t testing.TB, actsFor bool) *env {
	t.Helper()
	all := auth.Actions{Call: true, Register: true, Publish: true, Subscribe: true}
	authz := auth.NewStaticAuthorizer(map[string][]auth.Rule{
		"bridge":  {{URI: "com.example.", Match: uriindex.Prefix, Allow: auth.Actions{Call: true, Publish: true, Subscribe: true}}},
		"backend": {{URI: "", Match: uriindex.Prefix, Allow: all}},
		"user": {{URI: "com.user.", Match: uriindex.Prefix, Allow: auth.Actions{Call: true, Publish: true, Subscribe: true},
			DiscloseCaller: true, DisclosePublisher: true}},
	})
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: "realm1", Authorizer: authz}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	e := &env{t: t, router: r, actsFor: actsFor, joined: make(chan wamp.ID, 16), left: make(chan struct{}, 16)}
	e.bridge = e.connect("bridge", true)
	e.backend = e.connect("backend", false)
	<-e.joined
	return e
}

// connect joins realm1 with role; the bridge's client reports its joins
// and leaves and can be held off redialing.
func (e *env) connect(role string, isBridge bool) *client.Client {
	e.t.Helper()
	// The bridge's gate is Internal, as the node's for its own sessions.
	gate := e.router.NewGate(router.GateOptions{Auths: []auth.Authenticator{auth.Anonymous(role)},
		Internal: isBridge, ActsFor: isBridge && e.actsFor})
	first := true
	dial := func(ctx context.Context) (wamp.Peer, error) {
		if isBridge && !first && e.hold != nil {
			select {
			case <-e.hold:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		first = false
		// The bridge's router end parks, as the node's does.
		mine, theirs := local.Pair(local.Options{Parks: isBridge})
		go gate.Attach(theirs)
		return mine, nil
	}
	opts := client.ReconnectOptions{MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond}
	if isBridge {
		opts.OnJoin = func(s *client.Session) { e.joined <- s.ID() }
		opts.OnLeave = func(*client.Session, error) { e.left <- struct{}{} }
	}
	c, err := client.Connect(context.Background(), dial, client.Config{Realm: "realm1"}, opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

// register registers a procedure on the backend.
func (e *env) register(procedure wamp.URI, h client.InvocationHandler) {
	e.t.Helper()
	if _, err := e.backend.Register(context.Background(), procedure, h, nil); err != nil {
		e.t.Fatal(err)
	}
}

// subscribe subscribes the backend to topic; events arrive on the channel.
func (e *env) subscribe(topic wamp.URI) <-chan *client.Event {
	e.t.Helper()
	ch := make(chan *client.Event, 16)
	h := func(ev *client.Event) { ch <- ev }
	if _, err := e.backend.Subscribe(context.Background(), topic, h, nil); err != nil {
		e.t.Fatal(err)
	}
	return ch
}

// httpReq describes one request for do.
type httpReq struct {
	method  string
	path    string // default /call
	query   string
	body    string
	header  http.Header
	remote  string // RemoteAddr; default 192.0.2.1:1234
	tls     bool
	chunked bool // no Content-Length
}

// do runs one request through h and returns the recorded answer.
func do(h http.Handler, q httpReq) *httptest.ResponseRecorder {
	if q.method == "" {
		q.method = http.MethodPost
	}
	var body io.Reader = strings.NewReader(q.body)
	if q.chunked {
		body = io.MultiReader(body) // hides the length from NewRequest
	}
	if q.path == "" {
		q.path = "/call"
	}
	r := httptest.NewRequest(q.method, q.path, body)
	r.URL.RawQuery = q.query
	for k, v := range q.header {
		r.Header[k] = v
	}
	if q.remote != "" {
		r.RemoteAddr = q.remote
	}
	if q.tls {
		r.TLS = &tls.ConnectionState{}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
