package auth

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
)

// WAMP-CRA key derivation defaults, as in autobahn and Crossbar.
const (
	DefaultCRAIterations = 1000
	DefaultCRAKeyLen     = 32
)

// DeriveKey returns the WAMP-CRA key of a salted secret, exactly as
// autobahn's derive_key does: Base64(PBKDF2-HMAC-SHA256(secret, salt,
// iterations, keyLen)). The Base64 text itself, not the bytes it encodes, is
// the HMAC key for SignWampCRA. iterations and keyLen of 0 or less mean the
// defaults (1000 and 32). It returns "" if the parameters are out of range
// for PBKDF2 (a keyLen beyond (2^32-1)*32).
func DeriveKey(secret, salt string, iterations, keyLen int) string {
	if iterations <= 0 {
		iterations = DefaultCRAIterations
	}
	if keyLen <= 0 {
		keyLen = DefaultCRAKeyLen
	}
	key, err := pbkdf2.Key(sha256.New, secret, []byte(salt), iterations, keyLen)
	if err != nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(key)
}

// SignWampCRA returns the WAMP-CRA signature of challenge (the string from
// CHALLENGE.Extra.challenge) with key (the secret, or DeriveKey's result for
// a salted secret): Base64(HMAC-SHA256(key, challenge)), as autobahn's
// compute_wcs.
func SignWampCRA(key, challenge string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(challenge))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}
