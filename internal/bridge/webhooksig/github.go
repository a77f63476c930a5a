package webhooksig

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"net/http"
)

// verifyGitHub checks X-Hub-Signature-256 "sha256=<hex>", or, only when that
// header is absent, the legacy X-Hub-Signature "sha1=<hex>". A present but
// bad SHA-256 header never falls back to SHA-1.
func verifyGitHub(secret string, h http.Header, body []byte) error {
	if v := header(h, hdrGitHub256); v != "" {
		return checkHexMAC(GitHub, hdrGitHub256, "sha256=", sha256.New, secret, v, body)
	}
	if v := header(h, hdrGitHub1); v != "" {
		return checkHexMAC(GitHub, hdrGitHub1, "sha1=", sha1.New, secret, v, body)
	}
	return fail(GitHub, hdrGitHub256, ErrMissing, "header missing (and no "+hdrGitHub1+")")
}

// checkHexMAC checks v = prefix + hex(HMAC(secret, parts...)). The prefix is
// matched ignoring case and the hex digits may be upper or lower case.
func checkHexMAC(s Scheme, hdr, prefix string, hf func() hash.Hash, secret, v string, parts ...[]byte) error {
	digits, ok := cutPrefixFold(v, prefix)
	if !ok {
		return fail(s, hdr, ErrInvalid, "value does not start with "+prefix)
	}
	got, err := hex.DecodeString(digits)
	if err != nil {
		return fail(s, hdr, ErrInvalid, "signature is not hexadecimal")
	}
	want := sum(hf, []byte(secret), parts...)
	if len(got) != len(want) {
		return fail(s, hdr, ErrInvalid, "signature has the wrong length")
	}
	if !hmac.Equal(got, want) {
		return mismatch(s, hdr)
	}
	return nil
}
