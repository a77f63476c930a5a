package client

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// Authenticator answers one authentication method's CHALLENGE.
// Implementations must be safe for concurrent use (a Client joins again on
// every reconnect).
type Authenticator interface {
	// Method is the WAMP authmethod offered in HELLO.
	Method() string
	// AuthExtra is merged into HELLO.Details.authextra; nil for none.
	AuthExtra() wamp.Dict
	// Respond computes the AUTHENTICATE signature and extra for ch.
	Respond(ch *wamp.Challenge) (signature string, extra wamp.Dict, err error)
}

// PBKDF2 defaults for salted WAMP-CRA when the challenge omits them, as in
// autobahn.
const (
	defaultCRAIterations = 1000
	defaultCRAKeyLen     = 32
)

type noChallenge string

// Anonymous offers authmethod "anonymous": with other methods, it lets
// the router admit the session anonymously when it knows none of them.
// Config.Auth empty is anonymous already.
func Anonymous() Authenticator { return noChallenge("anonymous") }

// TLS offers authmethod "tls": the router admits the session by the
// client certificate of its TLS connection (set it in
// DialOptions.TLSConfig.Certificates), without a challenge.
func TLS() Authenticator { return noChallenge("tls") }

func (m noChallenge) Method() string     { return string(m) }
func (noChallenge) AuthExtra() wamp.Dict { return nil }

func (m noChallenge) Respond(*wamp.Challenge) (string, wamp.Dict, error) {
	return "", nil, fmt.Errorf("client: authmethod %s has no challenge", string(m))
}

type ticket string

// Ticket authenticates with a static ticket (WAMP-Ticket).
func Ticket(t string) Authenticator { return ticket(t) }

func (ticket) Method() string                                       { return "ticket" }
func (ticket) AuthExtra() wamp.Dict                                 { return nil }
func (t ticket) Respond(*wamp.Challenge) (string, wamp.Dict, error) { return string(t), nil, nil }

type wampCRA string

// WampCRA authenticates with a shared secret (WAMP-CRA). A salted challenge
// (salt, iterations and keylen in its extra) derives the key from the secret
// with PBKDF2 first.
func WampCRA(secret string) Authenticator { return wampCRA(secret) }

func (wampCRA) Method() string       { return "wampcra" }
func (wampCRA) AuthExtra() wamp.Dict { return nil }

func (w wampCRA) Respond(ch *wamp.Challenge) (string, wamp.Dict, error) {
	challenge, ok := ch.Extra["challenge"].(string)
	if !ok {
		return "", nil, errors.New("client: wampcra challenge without a challenge string")
	}
	key, err := w.key(ch.Extra)
	if err != nil {
		return "", nil, err
	}
	return auth.SignWampCRA(key, challenge), nil, nil
}

// key returns the secret, or the key derived from it for a salted challenge.
func (w wampCRA) key(extra wamp.Dict) (string, error) {
	salt, ok := extra["salt"].(string)
	if !ok || salt == "" {
		return string(w), nil
	}
	iterations, err := intExtra(extra, "iterations", defaultCRAIterations)
	if err != nil {
		return "", err
	}
	keyLen, err := intExtra(extra, "keylen", defaultCRAKeyLen)
	if err != nil {
		return "", err
	}
	key := auth.DeriveKey(string(w), salt, iterations, keyLen)
	if key == "" {
		return "", fmt.Errorf("client: wampcra challenge: cannot derive a key of %d bytes", keyLen)
	}
	return key, nil
}

// intExtra reads a positive integer from a challenge extra, def when absent.
func intExtra(extra wamp.Dict, key string, def int) (int, error) {
	v, ok := extra[key]
	if !ok || v == nil {
		return def, nil
	}
	n, ok := wamp.AsInt(v)
	if !ok || n <= 0 || n > 1<<24 {
		return 0, fmt.Errorf("client: wampcra challenge: bad %s %v", key, v)
	}
	return int(n), nil
}

type cryptosign struct {
	priv ed25519.PrivateKey
	pub  string
}

// Cryptosign authenticates with an Ed25519 key (WAMP-Cryptosign); it sends
// the public key in hex as authextra.pubkey.
func Cryptosign(priv ed25519.PrivateKey) Authenticator {
	c := &cryptosign{priv: priv}
	if len(priv) == ed25519.PrivateKeySize { // else Respond reports the bad key
		c.pub = hex.EncodeToString(priv.Public().(ed25519.PublicKey))
	}
	return c
}

func (*cryptosign) Method() string         { return "cryptosign" }
func (c *cryptosign) AuthExtra() wamp.Dict { return wamp.Dict{"pubkey": c.pub} }

func (c *cryptosign) Respond(ch *wamp.Challenge) (string, wamp.Dict, error) {
	challenge, ok := ch.Extra["challenge"].(string)
	if !ok {
		return "", nil, errors.New("client: cryptosign challenge without a challenge string")
	}
	sig, err := auth.SignCryptosign(c.priv, challenge)
	if err != nil {
		return "", nil, fmt.Errorf("client: cryptosign: %w", err)
	}
	return sig, nil, nil
}
