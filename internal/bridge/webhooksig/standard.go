package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"net/http"
	"strings"
	"time"
)

const standardSecretPrefix = "whsec_"

// standardKeys returns the HMAC keys to try for a Standard Webhooks secret:
// the base64 decoding of the part after "whsec_"; or, without the prefix,
// the base64 decoding when there is one, then the raw bytes (see the
// package documentation).
func standardKeys(secret string) ([][]byte, error) {
	if rest, ok := strings.CutPrefix(secret, standardSecretPrefix); ok {
		key, err := decodeBase64(rest)
		if err != nil || len(key) == 0 {
			return nil, fail(Standard, "", ErrInvalid, "configured secret is not base64 after "+standardSecretPrefix)
		}
		return [][]byte{key}, nil
	}
	keys := make([][]byte, 0, 2)
	if key, err := decodeBase64(secret); err == nil && len(key) > 0 {
		keys = append(keys, key)
	}
	return append(keys, []byte(secret)), nil
}

// verifyStandard checks that one "v1,<base64>" entry of webhook-signature
// (space-separated) is HMAC-SHA256(key, id + "." + timestamp + "." + body),
// then that webhook-timestamp is within Tolerance of now. Entries of other
// versions (v1a, asymmetric) are ignored. An id containing "." is refused:
// the specification forbids it, as it would let the id and timestamp shift.
func verifyStandard(secret string, h http.Header, body []byte, now time.Time) error {
	keys, err := standardKeys(secret)
	if err != nil {
		return err
	}
	id := header(h, hdrStandardID)
	if id == "" {
		return missing(Standard, hdrStandardID)
	}
	if strings.Contains(id, ".") {
		return fail(Standard, hdrStandardID, ErrInvalid, `id contains "."`)
	}
	sigs := header(h, hdrStandardSig)
	if sigs == "" {
		return missing(Standard, hdrStandardSig)
	}
	tsText := header(h, hdrStandardTime)
	ts, err := parseTimestamp(Standard, hdrStandardTime, tsText)
	if err != nil {
		return err
	}
	content := [][]byte{[]byte(id), []byte("."), []byte(tsText), []byte("."), body}
	if err := matchStandard(keys, sigs, content); err != nil {
		return err
	}
	return checkFresh(Standard, hdrStandardTime, ts, now)
}

// matchStandard reports whether one v1 entry of sigs is the MAC of content
// under one of keys. Each key's MAC is computed at most once.
func matchStandard(keys [][]byte, sigs string, content [][]byte) error {
	macs := make([][]byte, len(keys))
	found := false
	for entry := range strings.FieldsSeq(sigs) {
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version != "v1" {
			continue
		}
		found = true
		got, err := decodeBase64(sig)
		if err != nil {
			continue
		}
		for i, key := range keys {
			if macs[i] == nil {
				macs[i] = sum(sha256.New, key, content...)
			}
			if hmac.Equal(got, macs[i]) {
				return nil
			}
		}
	}
	if !found {
		return fail(Standard, hdrStandardSig, ErrMissing, "no v1 signature")
	}
	return mismatch(Standard, hdrStandardSig)
}
