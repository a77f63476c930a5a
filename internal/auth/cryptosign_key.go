package auth

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
)

// Errors of the cryptosign helpers.
var (
	ErrBadPublicKey = errors.New("auth: public key is not 64 hex digits (an Ed25519 key)")
	ErrBadChallenge = errors.New("auth: cryptosign challenge is not 64 hex digits")
)

// ParsePublicKey decodes a hex Ed25519 public key, as in authorized_keys
// and HELLO.Details.authextra.pubkey. Upper and lower case hex are accepted.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := decodeHex32(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPublicKey, err)
	}
	return ed25519.PublicKey(b), nil
}

// SignCryptosign answers a cryptosign CHALLENGE as autobahn does: it signs
// the 32 challenge bytes (challengeHex is CHALLENGE.Extra.challenge) and
// returns hex(signature || challenge), 192 hex digits.
func SignCryptosign(priv ed25519.PrivateKey, challengeHex string) (string, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return "", fmt.Errorf("auth: private key has %d bytes, want %d", len(priv), ed25519.PrivateKeySize)
	}
	challenge, err := decodeHex32(challengeHex)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadChallenge, err)
	}
	sig := ed25519.Sign(priv, challenge)
	return hex.EncodeToString(append(sig, challenge...)), nil
}

// decodeHex32 decodes exactly 32 bytes of hex.
func decodeHex32(s string) ([]byte, error) {
	if len(s) != 64 {
		return nil, fmt.Errorf("length %d", len(s))
	}
	return hex.DecodeString(s)
}
