package auth

import (
	"crypto/ed25519"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// RFC 8032 test 1 key pair, and a signature of the bytes 0..31 made with
// Python's cryptography package (an independent Ed25519 implementation).
const (
	seedHex   = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
	pubHex    = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
	vecSigHex = "00c1db988bb12fd7351a6054ae3fac90fab7e4fc56b1651c7181f5f55f896f66" +
		"3933d3a90605d9058e9d0ac45950ee2d3c9c9b14857415587179fe0ccac35f09"
)

func testKey(t testing.TB, seedHex string) ed25519.PrivateKey {
	seed, err := hex.DecodeString(seedHex)
	if err != nil {
		t.Fatal(err)
	}
	return ed25519.NewKeyFromSeed(seed)
}

func pubOf(k ed25519.PrivateKey) string { return hex.EncodeToString(k.Public().(ed25519.PublicKey)) }

func vecChallengeBytes() []byte {
	b := make([]byte, 32)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func TestSignCryptosignVector(t *testing.T) {
	k := testKey(t, seedHex)
	if pubOf(k) != pubHex {
		t.Fatalf("public key = %s, want %s", pubOf(k), pubHex)
	}
	ch := hex.EncodeToString(vecChallengeBytes())
	sig, err := SignCryptosign(k, ch)
	if err != nil || sig != vecSigHex+ch {
		t.Fatalf("SignCryptosign = %s, %v; want %s", sig, err, vecSigHex+ch)
	}
	for _, bad := range []string{"", ch[:62], ch + "00", strings.Repeat("zz", 32)} {
		if _, err := SignCryptosign(k, bad); err == nil {
			t.Errorf("SignCryptosign(%q) gave no error", bad)
		}
	}
	if _, err := SignCryptosign(k[:32], ch); err == nil {
		t.Error("SignCryptosign with a short key gave no error")
	}
}

func TestParsePublicKey(t *testing.T) {
	for _, s := range []string{pubHex, strings.ToUpper(pubHex)} {
		if k, err := ParsePublicKey(s); err != nil || hex.EncodeToString(k) != pubHex {
			t.Errorf("ParsePublicKey(%q) = %x, %v", s, k, err)
		}
	}
	for _, s := range []string{"", pubHex[:62], pubHex + "00", "g" + pubHex[1:]} {
		if _, err := ParsePublicKey(s); err == nil {
			t.Errorf("ParsePublicKey(%q) gave no error", s)
		}
	}
}

// csFixture is a cryptosign authenticator with three principals: alice
// (two keys), bob, and carol who shares bob's key.
type csFixture struct {
	a                 Authenticator
	alice1, alice2    ed25519.PrivateKey
	bob, stranger     ed25519.PrivateKey
	alicePub, bobPub  string
	alice2Pub, strPub string
}

func newCSFixture(t *testing.T) *csFixture {
	f := &csFixture{
		alice1:   testKey(t, seedHex),
		alice2:   testKey(t, strings.Repeat("11", 32)),
		bob:      testKey(t, strings.Repeat("22", 32)),
		stranger: testKey(t, strings.Repeat("33", 32)),
	}
	f.alicePub, f.alice2Pub, f.bobPub, f.strPub = pubOf(f.alice1), pubOf(f.alice2), pubOf(f.bob), pubOf(f.stranger)
	f.a = Cryptosign(map[string]CryptosignPrincipal{
		"alice": {AuthorizedKeys: []string{f.alicePub, strings.ToUpper(f.alice2Pub), "not-a-key"}, Role: "device"},
		"bob":   {AuthorizedKeys: []string{f.bobPub}, Role: "user"},
		"carol": {AuthorizedKeys: []string{f.bobPub}, Role: "user"},
		"nokey": {AuthorizedKeys: []string{"bad"}, Role: "user"},
	})
	return f
}

func hello(authid string, extra wamp.Dict) *Request {
	return &Request{AuthID: authid, Details: wamp.Dict{"authextra": extra}}
}

func TestCryptosignStart(t *testing.T) {
	f := newCSFixture(t)
	tests := []struct {
		name string
		req  *Request
		want wamp.URI // "" means a challenge
	}{
		{"authid and pubkey", hello("alice", wamp.Dict{"pubkey": f.alicePub}), ""},
		{"pubkey only", hello("", wamp.Dict{"pubkey": f.alicePub}), ""},
		{"authid only", hello("alice", nil), ""},
		{"empty pubkey", hello("alice", wamp.Dict{"pubkey": ""}), ""},
		{"upper case pubkey", hello("", wamp.Dict{"pubkey": strings.ToUpper(f.alicePub)}), ""},
		{"tls-unique without TLS", hello("alice", wamp.Dict{"pubkey": f.alicePub, "channel_binding": "tls-unique"}), ""},
		{"null channel binding", hello("alice", wamp.Dict{"pubkey": f.alicePub, "channel_binding": nil}), ""},
		// decoys: challenged, then refused as a wrong signature is
		{"unknown authid", hello("mallory", wamp.Dict{"pubkey": f.alicePub}), ""},
		{"unknown pubkey", hello("", wamp.Dict{"pubkey": f.strPub}), ""},
		{"pubkey of another principal", hello("alice", wamp.Dict{"pubkey": f.bobPub}), ""},
		{"principal without valid keys", hello("nokey", nil), ""},
		{"no authid no pubkey", hello("", nil), wamp.ErrAuthenticationDenied},
		{"no details", &Request{}, wamp.ErrAuthenticationDenied},
		{"ambiguous pubkey", hello("", wamp.Dict{"pubkey": f.bobPub}), wamp.ErrAuthenticationDenied},
		{"malformed pubkey hex", hello("alice", wamp.Dict{"pubkey": "zz" + f.alicePub[2:]}), wamp.ErrAuthenticationDenied},
		{"short pubkey", hello("alice", wamp.Dict{"pubkey": f.alicePub[:62]}), wamp.ErrAuthenticationDenied},
		{"pubkey not a string", hello("alice", wamp.Dict{"pubkey": 42}), wamp.ErrAuthenticationDenied},
		{"bogus channel binding", hello("alice", wamp.Dict{"channel_binding": "tls-exporter"}), wamp.ErrAuthenticationDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ch, err := f.a.Start(tt.req)
			if tt.want != "" {
				wantRefusal(t, err, tt.want)
				return
			}
			if err != nil || ch == nil {
				t.Fatalf("Start = %v, %v; want a challenge", ch, err)
			}
			extra := ch.Message().Extra
			if c, _ := extra["challenge"].(string); len(c) != 64 {
				t.Fatalf("challenge = %v, want 64 hex digits", extra["challenge"])
			}
			if v, ok := extra["channel_binding"]; !ok || v != nil {
				t.Fatalf("channel_binding = %v (present %v), want null", v, ok)
			}
		})
	}
	req := hello("alice", wamp.Dict{"channel_binding": "tls-unique"})
	req.Peer.TLS = true
	_, _, err := f.a.Start(req)
	wantRefusal(t, err, wamp.ErrAuthenticationDenied)
}

func TestCryptosignVerify(t *testing.T) {
	f := newCSFixture(t)
	fixed := hex.EncodeToString(vecChallengeBytes())
	sign := func(k ed25519.PrivateKey) func(string) string {
		return func(ch string) string { s, _ := SignCryptosign(k, ch); return s }
	}
	tests := []struct {
		name string
		req  *Request
		sig  func(challengeHex string) string
		ok   bool
	}{
		{"96 bytes", hello("alice", wamp.Dict{"pubkey": f.alicePub}), sign(f.alice1), true},
		{"64 bytes", hello("alice", wamp.Dict{"pubkey": f.alicePub}), func(ch string) string { return sign(f.alice1)(ch)[:128] }, true},
		{"pubkey only", hello("", wamp.Dict{"pubkey": f.alice2Pub}), sign(f.alice2), true},
		{"authid only, second key", hello("alice", nil), sign(f.alice2), true},
		{"upper case hex", hello("alice", nil), func(ch string) string { return strings.ToUpper(sign(f.alice1)(ch)) }, true},
		{"key of another principal", hello("alice", nil), sign(f.bob), false},
		{"other authorized key than announced", hello("alice", wamp.Dict{"pubkey": f.alicePub}), sign(f.alice2), false},
		{"stranger", hello("alice", nil), sign(f.stranger), false},
		{"signature of another challenge", hello("alice", nil), func(string) string { return sign(f.alice1)(fixed) }, false},
		{"96 bytes with wrong tail", hello("alice", nil), func(ch string) string { return sign(f.alice1)(ch)[:128] + fixed }, false},
		{"flipped bit", hello("alice", nil), func(ch string) string { return flipHex(sign(f.alice1)(ch)) }, false},
		{"malformed hex", hello("alice", nil), func(ch string) string { return "zz" + sign(f.alice1)(ch)[2:] }, false},
		{"odd length hex", hello("alice", nil), func(ch string) string { return sign(f.alice1)(ch)[1:] }, false},
		{"63 bytes", hello("alice", nil), func(ch string) string { return sign(f.alice1)(ch)[:126] }, false},
		{"empty", hello("alice", nil), func(string) string { return "" }, false},
		{"unknown authid", hello("mallory", nil), sign(f.alice1), false},
		{"unknown authid, own key announced", hello("mallory", wamp.Dict{"pubkey": f.alicePub}), sign(f.alice1), false},
		{"unknown pubkey", hello("", wamp.Dict{"pubkey": f.strPub}), sign(f.stranger), false},
		{"announced key of another principal", hello("alice", wamp.Dict{"pubkey": f.bobPub}), sign(f.bob), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := start(t, f.a, tt.req)
			id, err := ch.Verify(&wamp.Authenticate{Signature: tt.sig(ch.Message().Extra["challenge"].(string))})
			if !tt.ok {
				wantRefusal(t, err, wamp.ErrAuthenticationDenied)
				return
			}
			wantIdentity(t, id, err, Identity{AuthID: "alice", AuthRole: "device", AuthMethod: "cryptosign", AuthProvider: "static"})
		})
	}
}

// TestCryptosignKnownVector verifies the independent implementation's
// signature of a fixed challenge, in both forms.
func TestCryptosignKnownVector(t *testing.T) {
	f := newCSFixture(t)
	for _, sig := range []string{vecSigHex, vecSigHex + hex.EncodeToString(vecChallengeBytes())} {
		ch := start(t, f.a, hello("", wamp.Dict{"pubkey": pubHex}))
		ch.(*csChallenge).challenge = vecChallengeBytes()
		id, err := ch.Verify(&wamp.Authenticate{Signature: sig})
		wantIdentity(t, id, err, Identity{AuthID: "alice", AuthRole: "device", AuthMethod: "cryptosign", AuthProvider: "static"})
	}
}

func flipHex(s string) string {
	b, _ := hex.DecodeString(s)
	b[10] ^= 1
	return hex.EncodeToString(b)
}

func FuzzCryptosignVerify(f *testing.F) {
	k := testKey(f, seedHex)
	a := Cryptosign(map[string]CryptosignPrincipal{"alice": {AuthorizedKeys: []string{pubHex}, Role: "r"}})
	f.Add(vecSigHex)
	f.Add(vecSigHex + hex.EncodeToString(vecChallengeBytes()))
	f.Add("")
	f.Add("zz")
	f.Fuzz(func(t *testing.T, sig string) {
		_, ch, err := a.Start(hello("alice", wamp.Dict{"pubkey": pubHex}))
		if err != nil {
			t.Fatal(err)
		}
		ch.(*csChallenge).challenge = vecChallengeBytes()
		id, err := ch.Verify(&wamp.Authenticate{Signature: sig})
		if (err == nil) != (id != nil) {
			t.Fatalf("Verify = %v, %v", id, err)
		}
		if err == nil && !ed25519.Verify(k.Public().(ed25519.PublicKey), vecChallengeBytes(), mustHex(t, sig)[:64]) {
			t.Fatalf("accepted a signature that does not verify: %s", sig)
		}
	})
}

func mustHex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("accepted non-hex %q", s)
	}
	return b
}

func FuzzCryptosignStart(f *testing.F) {
	a := Cryptosign(map[string]CryptosignPrincipal{
		"alice": {AuthorizedKeys: []string{pubHex}, Role: "r"},
		"bob":   {AuthorizedKeys: []string{pubHex}, Role: "r"},
	})
	f.Add("alice", pubHex, "")
	f.Add("", pubHex, "tls-unique")
	f.Add("bob", "zz", "x")
	f.Fuzz(func(t *testing.T, authid, pubkey, binding string) {
		extra := wamp.Dict{"pubkey": pubkey}
		if binding != "" {
			extra["channel_binding"] = binding
		}
		id, ch, err := a.Start(hello(authid, extra))
		if id != nil || (err == nil) == (ch == nil) {
			t.Fatalf("Start = %v, %v, %v", id, ch, err)
		}
		named := pubkey == "" && (authid == "alice" || authid == "bob")
		if err == nil && (!named && !strings.EqualFold(pubkey, pubHex) || binding != "" && binding != "tls-unique") {
			t.Fatalf("challenged authid %q pubkey %q binding %q", authid, pubkey, binding)
		}
	})
}

// TestCryptosignRealm: a principal's realm is the identity's, and makes
// the authenticator one that assigns realms.
func TestCryptosignRealm(t *testing.T) {
	k := testKey(t, seedHex)
	plain := Cryptosign(map[string]CryptosignPrincipal{"dev": {AuthorizedKeys: []string{pubHex}, Role: "device"}})
	withRealm := Cryptosign(map[string]CryptosignPrincipal{"dev": {AuthorizedKeys: []string{pubHex}, Role: "device", Realm: "devices"},
		"other": {AuthorizedKeys: []string{pubHex}, Role: "device"}})
	if AssignsRealm(plain) || !AssignsRealm(withRealm) || !AssignsRealm(DynamicTicket(DynamicOptions{})) || AssignsRealm(Ticket(nil)) {
		t.Errorf("AssignsRealm: plain %v, with realm %v", AssignsRealm(plain), AssignsRealm(withRealm))
	}
	for a, want := range map[Authenticator]wamp.URI{plain: "", withRealm: "devices"} {
		ch := start(t, a, hello("dev", nil))
		sig, err := SignCryptosign(k, ch.Message().Extra["challenge"].(string))
		if err != nil {
			t.Fatal(err)
		}
		id, err := ch.Verify(&wamp.Authenticate{Signature: sig})
		wantIdentity(t, id, err, Identity{AuthID: "dev", AuthRole: "device", AuthMethod: MethodCryptosign, AuthProvider: ProviderStatic, Realm: want})
	}
}
