package webhooksig

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"hash"
	"net/http"
	"strconv"
	"time"
)

// The signers below compute each scheme's signature the way a sender does,
// independently of the package code, so the tests check the scheme rather
// than echo the implementation.

var testNow = time.Unix(1700000000, 0)

func mac(h func() hash.Hash, key []byte, parts ...string) []byte {
	m := hmac.New(h, key)
	for _, p := range parts {
		m.Write([]byte(p))
	}
	return m.Sum(nil)
}

func githubSig(secret, body string) string {
	return "sha256=" + hex.EncodeToString(mac(sha256.New, []byte(secret), body))
}

func githubSHA1(secret, body string) string {
	return "sha1=" + hex.EncodeToString(mac(sha1.New, []byte(secret), body))
}

func stripeV1(secret string, t int64, body string) string {
	return hex.EncodeToString(mac(sha256.New, []byte(secret), strconv.FormatInt(t, 10), ".", body))
}

func slackSig(secret string, t int64, body string) string {
	return "v0=" + hex.EncodeToString(mac(sha256.New, []byte(secret), "v0:", strconv.FormatInt(t, 10), ":", body))
}

func shopifySig(secret, body string) string {
	return base64.StdEncoding.EncodeToString(mac(sha256.New, []byte(secret), body))
}

func standardSig(key []byte, id string, t int64, body string) string {
	return "v1," + base64.StdEncoding.EncodeToString(mac(sha256.New, key, id, ".", strconv.FormatInt(t, 10), ".", body))
}

func unix(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// hdr builds a header from name/value pairs through Header.Add, which
// canonicalises the names.
func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// kindOf names the sentinel err wraps, for test messages.
func kindOf(err error) string {
	switch {
	case err == nil:
		return "nil"
	case errors.Is(err, ErrMissing):
		return "ErrMissing"
	case errors.Is(err, ErrInvalid):
		return "ErrInvalid"
	case errors.Is(err, ErrExpired):
		return "ErrExpired"
	}
	return "unwrapped(" + err.Error() + ")"
}
