package auth

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// asked records one call of a fake authenticator.
type asked struct {
	realm   wamp.URI
	authid  string
	details wamp.Dict
}

// fakeAuthenticator answers every call with res and err, recording it.
func fakeAuthenticator(res any, err error) (AuthenticateFunc, *[]asked) {
	var calls []asked
	return func(_ context.Context, realm wamp.URI, authid string, details wamp.Dict) (any, error) {
		calls = append(calls, asked{realm, authid, details})
		return res, err
	}, &calls
}

// helloRequest is a WebSocket client's HELLO for realm1.
func helloRequest(authid string, details wamp.Dict) *Request {
	return &Request{
		Realm: "realm1", Session: 42, AuthID: authid, Details: details,
		Peer: wamp.PeerInfo{Transport: "websocket", Serializer: "json", RemoteAddr: "127.0.0.1:5000",
			HTTPHeaders: map[string]string{"user-agent": "test"}},
	}
}

// wantTransport are transportDetails of helloRequest's peer.
var wantTransport = wamp.Dict{"type": "websocket", "protocol": "wamp.2.json", "peer": "tcp4:127.0.0.1:5000",
	"http_headers_received": wamp.Dict{"user-agent": "test"}, "cbtid": nil}

// TestDynamicResults: what each answer of an authenticator gives, the
// same for every method (ticket shown).
func TestDynamicResults(t *testing.T) {
	tests := []struct {
		name        string
		authid      string // in HELLO
		defaultRole string
		res         any
		err         error
		want        Identity
		wantErr     wamp.URI
	}{
		{name: "role", authid: "alice", res: "user", want: Identity{AuthID: "alice", AuthRole: "user", Realm: "realm1"}},
		{name: "dict", authid: "alice", res: wamp.Dict{"role": "user", "authid": "alice2", "realm": "realm2", "extra": wamp.Dict{"k": "v"}},
			want: Identity{AuthID: "alice2", AuthRole: "user", Realm: "realm2", AuthExtra: wamp.Dict{"k": "v"}}},
		{name: "default role", authid: "alice", defaultRole: "guest", res: wamp.Dict{}, want: Identity{AuthID: "alice", AuthRole: "guest", Realm: "realm1"}},
		{name: "role over default", authid: "alice", defaultRole: "guest", res: wamp.Dict{"role": "user"}, want: Identity{AuthID: "alice", AuthRole: "user", Realm: "realm1"}},
		{name: "nulls are absent", authid: "alice", res: wamp.Dict{"role": "user", "authid": nil, "realm": nil, "extra": nil}, want: Identity{AuthID: "alice", AuthRole: "user", Realm: "realm1"}},
		{name: "authid assigned", res: wamp.Dict{"role": "user", "authid": "bob"}, want: Identity{AuthID: "bob", AuthRole: "user", Realm: "realm1"}},
		{name: "no role", authid: "alice", res: wamp.Dict{}, wantErr: wamp.ErrNoSuchRole},
		{name: "no authid", res: "user", wantErr: wamp.ErrNoSuchPrincipal},
		{name: "not a role", authid: "alice", res: 7, wantErr: wamp.ErrAuthenticationFailed},
		{name: "no result", authid: "alice", res: nil, wantErr: wamp.ErrAuthenticationFailed},
		{name: "role not a string", authid: "alice", res: wamp.Dict{"role": true}, wantErr: wamp.ErrAuthenticationFailed},
		{name: "extra not a dict", authid: "alice", res: wamp.Dict{"role": "user", "extra": "x"}, wantErr: wamp.ErrAuthenticationFailed},
		{name: "application error", authid: "alice", err: &wamp.RequestError{URI: "com.example.invalid_ticket", Args: wamp.List{"bad ticket", 2}},
			wantErr: "com.example.invalid_ticket"},
		{name: "other error", authid: "alice", err: errors.New("boom"), wantErr: wamp.ErrAuthenticationFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fn, _ := fakeAuthenticator(tt.res, tt.err)
			a := DynamicTicket(DynamicOptions{Authenticate: fn, DefaultRole: tt.defaultRole})
			ch := start(t, a, helloRequest(tt.authid, nil))
			id, err := ch.Verify(&wamp.Authenticate{Signature: "t"})
			if tt.wantErr != "" {
				wantRefusal(t, err, tt.wantErr)
				return
			}
			tt.want.AuthMethod, tt.want.AuthProvider = MethodTicket, ProviderDynamic
			if err != nil || !reflect.DeepEqual(*id, tt.want) {
				t.Fatalf("Verify = %+v, %v; want %+v", id, err, tt.want)
			}
		})
	}
}

// TestDynamicRefusalMessage: an authenticator's error gives the ABORT its
// URI and, as its message, its first argument as text (as Crossbar).
func TestDynamicRefusalMessage(t *testing.T) {
	tests := []struct {
		args wamp.List
		want wamp.List
	}{
		{wamp.List{"no such user"}, wamp.List{"no such user"}},
		{wamp.List{42, "x"}, wamp.List{"42"}},
		{nil, nil},
	}
	for _, tt := range tests {
		fn, _ := fakeAuthenticator(nil, &wamp.RequestError{URI: "com.example.denied", Args: tt.args})
		_, _, err := DynamicAnonymous(DynamicOptions{Authenticate: fn}).Start(helloRequest("", nil))
		var re *wamp.RequestError
		if !errors.As(err, &re) || re.URI != "com.example.denied" || !reflect.DeepEqual(re.Args, tt.want) {
			t.Errorf("args %v: error %#v, want com.example.denied with args %v", tt.args, err, tt.want)
		}
		if errors.Is(err, ErrUnavailable) {
			t.Errorf("args %v: a refusal is marked unavailable", tt.args)
		}
	}
}

// TestDynamicUnavailable: an authenticator that does not answer in time,
// or could not be asked, refuses the login with an error that says so.
func TestDynamicUnavailable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := func(ctx context.Context, _ wamp.URI, _ string, _ wamp.Dict) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		start := time.Now()
		_, _, err := DynamicAnonymous(DynamicOptions{Authenticate: slow, Timeout: 3 * time.Second}).Start(helloRequest("", nil))
		if !errors.Is(err, ErrUnavailable) || time.Since(start) != 3*time.Second {
			t.Errorf("slow authenticator: %v after %v, want unavailable after 3s", err, time.Since(start))
		}
		wantRefusal(t, err, wamp.ErrAuthenticationFailed)
	})
	down := fmt.Errorf("%w: %w", ErrUnavailable, wamp.Errorf(wamp.ErrNoSuchProcedure, "no callee"))
	fn, _ := fakeAuthenticator(nil, down)
	_, _, err := DynamicAnonymous(DynamicOptions{Authenticate: fn}).Start(helloRequest("", nil))
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("no authenticator: %v, want unavailable", err)
	}
	wantRefusal(t, err, wamp.ErrNoSuchProcedure)
	_, _, err = DynamicAnonymous(DynamicOptions{}).Start(helloRequest("", nil))
	wantRefusal(t, err, wamp.ErrAuthenticationFailed)
}

// TestDynamicTicketAsks: ticket asks after AUTHENTICATE, with Crossbar's
// details (no authid or authrole among them), the HELLO's authid (null
// when none) and realm.
func TestDynamicTicketAsks(t *testing.T) {
	fn, calls := fakeAuthenticator("user", nil)
	a := DynamicTicket(DynamicOptions{Authenticate: fn})
	if !IsDynamic(a) || a.Method() != MethodTicket {
		t.Fatalf("IsDynamic = %v, Method = %q", IsDynamic(a), a.Method())
	}
	ch := start(t, a, helloRequest("alice", wamp.Dict{"authextra": wamp.Dict{"x": 1}, "authrole": "admin"}))
	if len(*calls) != 0 {
		t.Fatal("asked before the ticket came")
	}
	if _, err := ch.Verify(&wamp.Authenticate{Signature: "secret1"}); err != nil {
		t.Fatal(err)
	}
	want := asked{"realm1", "alice", wamp.Dict{"transport": wantTransport, "session": uint64(42),
		"authmethod": "ticket", "authextra": wamp.Dict{"x": 1}, "ticket": "secret1"}}
	if len(*calls) != 1 || !reflect.DeepEqual((*calls)[0], want) {
		t.Fatalf("calls = %+v, want %+v", *calls, want)
	}
	if _, err := ch.Verify(&wamp.Authenticate{Signature: "secret1"}); err == nil || len(*calls) != 1 {
		t.Fatal("a challenge was answered twice")
	}
}

// TestDynamicWampCRA: wampcra asks at HELLO and challenges with the
// secret of the answer, salted or not.
func TestDynamicWampCRA(t *testing.T) {
	tests := []struct {
		name   string
		res    wamp.Dict
		secret string // the client's
		err    wamp.URI
	}{
		{name: "plain", res: wamp.Dict{"secret": "s3cr3t", "role": "user"}, secret: "s3cr3t"},
		{name: "salted", res: wamp.Dict{"secret": "pw", "role": "user", "salt": "salt123", "iterations": int64(100), "keylen": int64(16)}, secret: "pw"},
		{name: "salted derived key", res: wamp.Dict{"secret": vecKey100x16, "role": "user", "salt": "salt123", "iterations": 100, "keylen": 16}, secret: "secret123"},
		{name: "wrong secret", res: wamp.Dict{"secret": "s3cr3t", "role": "user"}, secret: "nope", err: wamp.ErrAuthenticationDenied},
		{name: "no secret", res: wamp.Dict{"role": "user"}, err: wamp.ErrAuthenticationFailed},
		{name: "bad iterations", res: wamp.Dict{"secret": "s", "role": "user", "salt": "x", "iterations": "many"}, err: wamp.ErrAuthenticationFailed},
		{name: "too many iterations", res: wamp.Dict{"secret": "s", "role": "user", "salt": "x", "iterations": MaxDynamicCRAIterations + 1}, err: wamp.ErrAuthenticationFailed},
		{name: "key too long", res: wamp.Dict{"secret": "s", "role": "user", "salt": "x", "keylen": int64(1) << 31}, err: wamp.ErrAuthenticationFailed},
		{name: "zero keylen", res: wamp.Dict{"secret": "s", "role": "user", "salt": "x", "keylen": 0}, err: wamp.ErrAuthenticationFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fn, calls := fakeAuthenticator(tt.res, nil)
			a := DynamicWampCRA(DynamicOptions{Authenticate: fn})
			req := helloRequest("carol", wamp.Dict{"authrole": "admin"})
			_, ch, err := a.Start(req)
			want := wamp.Dict{"transport": wantTransport, "session": uint64(42), "authmethod": "wampcra",
				"authextra": nil, "authid": "carol", "authrole": "admin"}
			if len(*calls) != 1 || !reflect.DeepEqual((*calls)[0].details, want) {
				t.Fatalf("calls = %+v, want details %v", *calls, want)
			}
			if ch == nil {
				wantRefusal(t, err, tt.err)
				return
			}
			id, err := ch.Verify(&wamp.Authenticate{Signature: autobahnSign(t, ch.Message(), tt.secret)})
			if tt.err != "" {
				wantRefusal(t, err, tt.err)
				return
			}
			wantIdentity(t, id, err, Identity{AuthID: "carol", AuthRole: "user", AuthMethod: MethodWampCRA, AuthProvider: ProviderDynamic})
		})
	}
}

// TestDynamicWampCRAChallenge: the challenge names the identity the
// authenticator assigned and provider "dynamic", as Crossbar's does.
func TestDynamicWampCRAChallenge(t *testing.T) {
	fn, _ := fakeAuthenticator(wamp.Dict{"secret": "s", "role": "user", "authid": "carol2"}, nil)
	_, ch, err := DynamicWampCRA(DynamicOptions{Authenticate: fn}).Start(helloRequest("carol", nil))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(ch.Message().Extra["challenge"].(string)), &got); err != nil {
		t.Fatal(err)
	}
	if got["authid"] != "carol2" || got["authrole"] != "user" || got["authprovider"] != "dynamic" || got["session"] != 42.0 {
		t.Errorf("challenge = %v", got)
	}
}

// TestDynamicCryptosign: cryptosign asks at HELLO and challenges the
// answer's public key; a channel binding it cannot honour is refused
// before asking.
func TestDynamicCryptosign(t *testing.T) {
	key := testKey(t, seedHex)
	other := testKey(t, "4a756e6374696f6e20696e7465726f702074657374206b6579206f6620646176")
	tests := []struct {
		name   string
		res    any
		signer ed25519.PrivateKey
		err    wamp.URI
	}{
		{name: "pubkey", res: wamp.Dict{"pubkey": pubHex, "role": "device"}, signer: key},
		{name: "wrong key", res: wamp.Dict{"pubkey": pubHex, "role": "device"}, signer: other, err: wamp.ErrAuthenticationDenied},
		{name: "no pubkey", res: "device", err: wamp.ErrAuthenticationFailed},
		{name: "bad pubkey", res: wamp.Dict{"pubkey": "zz", "role": "device"}, err: wamp.ErrAuthenticationFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fn, _ := fakeAuthenticator(tt.res, nil)
			_, ch, err := DynamicCryptosign(DynamicOptions{Authenticate: fn}).Start(helloRequest("dave", nil))
			if ch == nil {
				wantRefusal(t, err, tt.err)
				return
			}
			sig, err := SignCryptosign(tt.signer, ch.Message().Extra["challenge"].(string))
			if err != nil {
				t.Fatal(err)
			}
			id, err := ch.Verify(&wamp.Authenticate{Signature: sig})
			if tt.err != "" {
				wantRefusal(t, err, tt.err)
				return
			}
			wantIdentity(t, id, err, Identity{AuthID: "dave", AuthRole: "device", AuthMethod: MethodCryptosign, AuthProvider: ProviderDynamic})
		})
	}
	fn, calls := fakeAuthenticator(wamp.Dict{"pubkey": pubHex, "role": "device"}, nil)
	req := helloRequest("dave", wamp.Dict{"authextra": wamp.Dict{"channel_binding": "tls-unique"}})
	req.Peer.TLS = true
	_, _, err := DynamicCryptosign(DynamicOptions{Authenticate: fn}).Start(req)
	wantRefusal(t, err, wamp.ErrAuthenticationDenied)
	if len(*calls) != 0 {
		t.Error("asked the authenticator about a channel binding refused anyway")
	}
}

// TestDynamicAnonymous: anonymous asks at HELLO about the configured
// authid or a random one, never the client's.
func TestDynamicAnonymous(t *testing.T) {
	serial := regexp.MustCompile(`^[A-Z2-7]{4}(-[A-Z2-7]{4}){5}$`)
	for _, configured := range []string{"", "visitor"} {
		fn, calls := fakeAuthenticator("guest", nil)
		id, ch, err := DynamicAnonymous(DynamicOptions{Authenticate: fn, AuthID: configured}).Start(helloRequest("alice", nil))
		if err != nil || ch != nil {
			t.Fatalf("Start = %v, %v, %v", id, ch, err)
		}
		c := (*calls)[0]
		if configured != "" && c.authid != configured || configured == "" && !serial.MatchString(c.authid) || id.AuthID != c.authid {
			t.Errorf("configured %q: asked about %q, got %q", configured, c.authid, id.AuthID)
		}
		want := wamp.Dict{"transport": wantTransport, "session": uint64(42), "authmethod": "anonymous", "authextra": nil}
		if !reflect.DeepEqual(c.details, want) {
			t.Errorf("details = %v, want %v", c.details, want)
		}
	}
}

func TestPeerName(t *testing.T) {
	tests := []struct {
		addr string
		want any
	}{
		{"127.0.0.1:8080", "tcp4:127.0.0.1:8080"},
		{"[::ffff:10.0.0.1]:80", "tcp4:10.0.0.1:80"},
		{"[::1]:9000", "tcp6:::1:9000"},
		{"/run/junction.sock", "unix:/run/junction.sock"},
		{"", nil},
	}
	for _, tt := range tests {
		if got := peerName(tt.addr); got != tt.want {
			t.Errorf("peerName(%q) = %v, want %v", tt.addr, got, tt.want)
		}
	}
	raw := transportDetails(wamp.PeerInfo{Transport: "rawsocket", Serializer: "msgpack", RemoteAddr: "127.0.0.1:1"})
	if want := (wamp.Dict{"type": "rawsocket", "protocol": "wamp.2.msgpack", "peer": "tcp4:127.0.0.1:1"}); !reflect.DeepEqual(raw, want) {
		t.Errorf("rawsocket details = %v, want %v", raw, want)
	}
}
