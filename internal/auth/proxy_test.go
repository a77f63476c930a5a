package auth

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// proxyHello is a proxy's HELLO details naming alice/user on realm1,
// with extra keys added.
func proxyHello(extra wamp.Dict) wamp.Dict {
	e := wamp.Dict{ProxyRealm: "realm1", ProxyAuthID: "alice", ProxyAuthRole: "user"}
	for k, v := range extra {
		if v == nil {
			delete(e, k)
			continue
		}
		e[k] = v
	}
	return wamp.Dict{wamp.KeyAuthExtra: e}
}

func TestAnonymousProxy(t *testing.T) {
	a := AnonymousProxy()
	id, ch, err := a.Start(&Request{Realm: "other", Details: proxyHello(wamp.Dict{ProxyAuthExtra: wamp.Dict{"x": 1}})})
	if err != nil || ch != nil {
		t.Fatalf("Start = %v, %v, %v", id, ch, err)
	}
	want := Identity{AuthID: "alice", AuthRole: "user", AuthMethod: MethodAnonymousProxy, AuthProvider: ProviderStatic}
	wantIdentity(t, id, nil, want)
	if id.Realm != "realm1" || id.AuthExtra["x"] != 1 {
		t.Fatalf("identity = %+v, want realm1 and the proxied authextra", id)
	}
	if !AssignsRealm(a) {
		t.Fatal("AssignsRealm = false: the proxied realm must be joined whatever HELLO names")
	}
}

func TestProxyRefusals(t *testing.T) {
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	cs := Cryptosign(map[string]CryptosignPrincipal{"node1": {AuthorizedKeys: []string{hex.EncodeToString(key.Public().(ed25519.PublicKey))}}})
	tests := []struct {
		name    string
		details wamp.Dict
	}{
		{"no authextra", wamp.Dict{}},
		{"no proxy_realm", proxyHello(wamp.Dict{ProxyRealm: nil})},
		{"no proxy_authid", proxyHello(wamp.Dict{ProxyAuthID: nil})},
		{"empty proxy_authrole", proxyHello(wamp.Dict{ProxyAuthRole: ""})},
		{"authrole not a string", proxyHello(wamp.Dict{ProxyAuthRole: 1})},
		{"authextra not an object", proxyHello(wamp.Dict{ProxyAuthExtra: "x"})},
	}
	for _, tt := range tests {
		for _, a := range []Authenticator{AnonymousProxy(), CryptosignProxy(cs)} {
			t.Run(tt.name+"/"+a.Method(), func(t *testing.T) {
				_, _, err := a.Start(&Request{Details: tt.details})
				wantRefusal(t, err, wamp.ErrAuthenticationDenied)
			})
		}
	}
}

func TestCryptosignProxy(t *testing.T) {
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	pub := hex.EncodeToString(key.Public().(ed25519.PublicKey))
	other := ed25519.NewKeyFromSeed(append(make([]byte, 31), 1))
	principals := map[string]CryptosignPrincipal{
		"node1": {AuthorizedKeys: []string{pub}, Role: "proxy"},
	}
	tests := []struct {
		name       string
		principals map[string]CryptosignPrincipal
		signer     ed25519.PrivateKey
		ok         bool
	}{
		{"right key", principals, key, true},
		{"wrong key", principals, other, false},
		{"principal of the proxied realm", map[string]CryptosignPrincipal{"node1": {AuthorizedKeys: []string{pub}, Realm: "realm1"}}, key, true},
		{"principal of another realm", map[string]CryptosignPrincipal{"node1": {AuthorizedKeys: []string{pub}, Realm: "realm2"}}, key, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := CryptosignProxy(Cryptosign(tt.principals))
			ch := start(t, a, &Request{Details: proxyHello(wamp.Dict{"pubkey": pub})})
			sig, err := SignCryptosign(tt.signer, ch.Message().Extra["challenge"].(string))
			if err != nil {
				t.Fatal(err)
			}
			id, err := ch.Verify(&wamp.Authenticate{Signature: sig})
			if !tt.ok {
				wantRefusal(t, err, wamp.ErrAuthenticationDenied)
				return
			}
			wantIdentity(t, id, err, Identity{AuthID: "alice", AuthRole: "user", AuthMethod: MethodCryptosignProxy, AuthProvider: ProviderStatic})
			if id.Realm != "realm1" {
				t.Fatalf("realm = %q, want realm1", id.Realm)
			}
		})
	}
}

// FuzzProxyHello checks the reading of a proxy's HELLO (details as JSON):
// never a panic; an identity only with a realm, authid and authrole, else
// a refusal.
func FuzzProxyHello(f *testing.F) {
	f.Add(`{"authextra": {"proxy_realm": "realm1", "proxy_authid": "alice", "proxy_authrole": "user"}}`)
	f.Add(`{"authextra": {"proxy_realm": "realm1", "proxy_authid": "alice", "proxy_authrole": "user", "proxy_authextra": {"a": [1]}}}`)
	f.Add(`{"authextra": {"proxy_realm": 1, "proxy_authid": null, "proxy_authrole": ""}}`)
	f.Add(`{"authextra": "x", "authid": 3, "authmethods": ["anonymous-proxy", 1]}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, details string) {
		var d wamp.Dict
		if json.Unmarshal([]byte(details), &d) != nil {
			return
		}
		req, err := HelloRequest(&wamp.Hello{Realm: "realm1", Details: d}, 1, wamp.PeerInfo{})
		if err != nil {
			return
		}
		id, ch, err := AnonymousProxy().Start(req)
		switch {
		case err != nil:
			wantRefusal(t, err, wamp.ErrAuthenticationDenied)
		case ch != nil || id == nil || id.Realm == "" || id.AuthID == "" || id.AuthRole == "":
			t.Fatalf("Start = %+v, %v", id, ch)
		}
	})
}
