package auth

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"maps"
	"slices"

	"github.com/junction-wamp/junction/wamp"
)

// CryptosignPrincipal is a principal of the cryptosign authenticator.
type CryptosignPrincipal struct {
	// AuthorizedKeys are the principal's Ed25519 public keys, 64 hex digits
	// each. Keys that do not parse (see ParsePublicKey) are ignored here:
	// configuration validation should reject them.
	AuthorizedKeys []string
	Role           string // the authrole given on success
	// Realm is the realm the principal's sessions join, whatever realm
	// their HELLO names (as Crossbar's static principals' "realm"); ""
	// means the HELLO's.
	Realm wamp.URI
}

// csPrincipal is a CryptosignPrincipal with its keys parsed.
type csPrincipal struct {
	role  string
	realm wamp.URI
	keys  []ed25519.PublicKey
}

// cryptosign checks Ed25519 signatures against static principals.
// Immutable after construction, so safe for concurrent use.
type cryptosign struct {
	principals map[string]*csPrincipal
	owners     map[[ed25519.PublicKeySize]byte][]string // public key -> authids
	realms     bool                                     // some principal has a Realm
	// keyCounts are the principals' numbers of keys (those with any),
	// sorted by authid: a decoy checks a signature against as many keys
	// as one of them, chosen by authid, so that Verify takes as long.
	keyCounts []int
	// decoyKeys are max(keyCounts) copies of a public key made at
	// construction, whose private key was thrown away: what a decoy
	// checks signatures against.
	decoyKeys []ed25519.PublicKey
}

var _ Authenticator = (*cryptosign)(nil)

// Cryptosign returns the "cryptosign" authenticator over principals keyed by
// authid. The client names itself by HELLO authid, by the public key in
// HELLO.Details.authextra.pubkey, or both (then the key must be one of the
// principal's); as in Crossbar, a pubkey alone identifies the principal
// only if exactly one principal has that key. The CHALLENGE extra is
// {"challenge": hex(32 random bytes), "channel_binding": null}; the
// signature is hex(Ed25519 signature), optionally followed by the challenge
// as autobahn sends it. principals is copied.
func Cryptosign(principals map[string]CryptosignPrincipal) Authenticator {
	c := &cryptosign{
		principals: make(map[string]*csPrincipal, len(principals)),
		owners:     make(map[[ed25519.PublicKeySize]byte][]string),
	}
	for id, p := range principals {
		cp := &csPrincipal{role: p.Role, realm: p.Realm}
		c.realms = c.realms || p.Realm != ""
		for _, s := range p.AuthorizedKeys {
			k, err := ParsePublicKey(s)
			if err != nil {
				continue
			}
			cp.keys = append(cp.keys, k)
			c.owners[[32]byte(k)] = append(c.owners[[32]byte(k)], id)
		}
		c.principals[id] = cp
	}
	c.makeDecoys()
	return c
}

// makeDecoys fills keyCounts and decoyKeys.
func (c *cryptosign) makeDecoys() {
	for _, id := range slices.Sorted(maps.Keys(c.principals)) {
		if n := len(c.principals[id].keys); n > 0 {
			c.keyCounts = append(c.keyCounts, n)
		}
	}
	if len(c.keyCounts) == 0 {
		c.keyCounts = []int{1}
	}
	k := ed25519.NewKeyFromSeed(randomBytes(ed25519.SeedSize)).Public().(ed25519.PublicKey)
	c.decoyKeys = slices.Repeat([]ed25519.PublicKey{k}, slices.Max(c.keyCounts))
}

func (*cryptosign) Method() string { return MethodCryptosign }

// assignsRealm: a principal with a Realm joins it whatever the HELLO
// names (see AssignsRealm).
func (c *cryptosign) assignsRealm() bool { return c.realms }

// Start identifies the principal and challenges the client to sign 32
// random bytes. When no principal matches (an unknown authid or public
// key, or a public key that is not the named principal's), the challenge
// is a decoy that no signature verifies, so that the client is refused
// exactly as for a wrong signature.
func (c *cryptosign) Start(req *Request) (*Identity, Challenge, error) {
	extra, _ := req.Details[wamp.KeyAuthExtra].(wamp.Dict)
	if err := checkChannelBinding(extra, req.Peer.TLS); err != nil {
		return nil, nil, err
	}
	pubkey, err := helloPubkey(extra)
	if err != nil {
		return nil, nil, err
	}
	if req.AuthID == "" && pubkey == nil {
		return nil, nil, denied(MethodCryptosign, "no authid and no authextra.pubkey given")
	}
	authid, err := c.resolve(req.AuthID, pubkey)
	if err != nil {
		return nil, nil, err
	}
	return nil, c.challenge(authid, pubkey), nil
}

// challenge challenges authid, with only pubkey if it is not nil; a decoy
// when the principal does not exist or has no such key. The decoy's keys
// are chosen either way, so that Start does the same work for a known
// authid as for an unknown one (see decoy.go).
func (c *cryptosign) challenge(authid string, pubkey ed25519.PublicKey) *csChallenge {
	id := Identity{AuthID: authid, AuthMethod: MethodCryptosign, AuthProvider: ProviderStatic}
	ch := &csChallenge{id: id, challenge: randomBytes(32)}
	decoy := c.decoy(authid, pubkey != nil)
	if p := c.principals[authid]; p != nil {
		ch.id.AuthRole, ch.id.Realm, ch.keys = p.role, p.realm, p.keys
	}
	if pubkey != nil {
		ch.keys = only(ch.keys, pubkey)
	}
	if len(ch.keys) == 0 {
		ch.decoy, ch.keys = true, decoy
	}
	return ch
}

// decoy returns the keys a decoy challenge for authid checks signatures
// against: as many as a principal chosen by authid has, or one when the
// client named its key (withKey), as a real challenge then has.
func (c *cryptosign) decoy(authid string, withKey bool) []ed25519.PublicKey {
	n := c.keyCounts[decoyRand("cryptosign", authid).IntN(len(c.keyCounts))]
	if withKey {
		n = 1
	}
	return c.decoyKeys[:n]
}

// resolve returns the authid of the principal named by authid or, when
// authid is "", by pubkey ("" when none has it: a decoy).
func (c *cryptosign) resolve(authid string, pubkey ed25519.PublicKey) (string, error) {
	if authid != "" {
		return authid, nil
	}
	owners := c.owners[[32]byte(pubkey)]
	if len(owners) > 1 {
		return "", denied(MethodCryptosign, "cannot infer authid: several principals have the public key in authextra.pubkey")
	}
	if len(owners) == 0 {
		return "", nil
	}
	return owners[0], nil
}

// helloPubkey returns authextra.pubkey, nil if absent (or "", as Crossbar
// treats it).
func helloPubkey(extra wamp.Dict) (ed25519.PublicKey, error) {
	v, ok := extra["pubkey"]
	if !ok || v == nil || v == "" {
		return nil, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, denied(MethodCryptosign, "authextra.pubkey is not a string")
	}
	k, err := ParsePublicKey(s)
	if err != nil {
		return nil, denied(MethodCryptosign, "authextra.pubkey is malformed: %v", err)
	}
	return k, nil
}

// checkChannelBinding refuses a channel binding we cannot honour. A client
// asking for "tls-unique" over a connection without TLS has no channel ID
// and signs the bare challenge (autobahn does so), so only that case is let
// through; Go's TLS has no tls-unique for TLS 1.3, so TLS connections are
// refused rather than failed later with a puzzling signature error.
func checkChannelBinding(extra wamp.Dict, tls bool) error {
	v, ok := extra["channel_binding"]
	if !ok || v == nil {
		return nil
	}
	if s, _ := v.(string); s != "tls-unique" {
		return denied(MethodCryptosign, "invalid channel binding type %v requested", v)
	}
	if tls {
		return denied(MethodCryptosign, "channel binding \"tls-unique\" is not supported")
	}
	return nil
}

// only returns k alone if it is among keys, else none (a part of keys,
// not a copy: nothing to allocate, as for a decoy).
func only(keys []ed25519.PublicKey, k ed25519.PublicKey) []ed25519.PublicKey {
	for i, x := range keys {
		if bytes.Equal(x, k) {
			return keys[i : i+1 : i+1]
		}
	}
	return nil
}

// csChallenge waits for the signature of 32 random bytes.
type csChallenge struct {
	once
	id        Identity            // the session's, once the signature checks out
	keys      []ed25519.PublicKey // any of these may have signed
	challenge []byte
	decoy     bool // no principal matched: never accepted
}

var _ Challenge = (*csChallenge)(nil)

func (c *csChallenge) Message() *wamp.Challenge {
	return &wamp.Challenge{AuthMethod: MethodCryptosign, Extra: wamp.Dict{
		"challenge":       hex.EncodeToString(c.challenge),
		"channel_binding": nil,
	}}
}

// Verify checks the signature in a: 64 bytes, or 96 whose last 32 are the
// challenge, hex encoded.
func (c *csChallenge) Verify(a *wamp.Authenticate) (*Identity, error) {
	if !c.take() {
		return nil, denied(MethodCryptosign, "challenge already answered")
	}
	sig, err := hex.DecodeString(a.Signature)
	if err != nil {
		return nil, denied(MethodCryptosign, "signature is not hex encoded")
	}
	switch {
	case len(sig) == ed25519.SignatureSize:
	case len(sig) == ed25519.SignatureSize+len(c.challenge):
		if !bytes.Equal(sig[ed25519.SignatureSize:], c.challenge) {
			return nil, denied(MethodCryptosign, "signed message is not the challenge")
		}
		sig = sig[:ed25519.SignatureSize]
	default:
		return nil, denied(MethodCryptosign, "signature has %d bytes, want 64 or 96", len(sig))
	}
	if !c.verified(sig) || c.decoy {
		return nil, denied(MethodCryptosign, "invalid signature")
	}
	id := c.id
	return &id, nil
}

// verified reports whether one of the keys signed the challenge.
func (c *csChallenge) verified(sig []byte) bool {
	for _, k := range c.keys {
		if ed25519.Verify(k, c.challenge, sig) {
			return true
		}
	}
	return false
}
