package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strconv"
)

// Decoys. An authid that names no principal still gets a CHALLENGE, built
// like a real principal's, and its AUTHENTICATE is then refused exactly as
// a wrong secret is (same URI, same message). Without this the answers
// would enumerate the principals: an immediate ABORT for an unknown authid,
// a CHALLENGE for a known one.
//
// Whatever a decoy shows that a real challenge keeps from one attempt to
// the next (a WAMP-CRA salt, its parameters, the authrole) is derived from
// the authid with decoyKey, so that it too stays the same across attempts:
// a decoy that changed every time would give the unknown authid away. The
// key is random per process, so a restart changes the decoys (the real
// principals' parameters do not); never derive it from the configured
// secrets, which would hand out an oracle for guessing them.

// decoyKey is the per-process key of the decoys. Written once, at package
// initialisation; read-only afterwards.
var decoyKey = randomBytes(32)

// decoySum returns HMAC-SHA256(decoyKey, label || 0 || authid): stable for
// one authid within the process, unpredictable without the key.
func decoySum(label, authid string) []byte {
	m := hmac.New(sha256.New, decoyKey)
	m.Write([]byte(label))
	m.Write([]byte{0})
	m.Write([]byte(authid))
	return m.Sum(nil)
}

// decoyIndex picks one of n (> 0) items for authid, stably.
func decoyIndex(label, authid string, n int) int {
	return int(binary.BigEndian.Uint64(decoySum(label, authid)) % uint64(n))
}

// decoyText returns n characters of base64 (no padding) derived from
// authid, stably.
func decoyText(label, authid string, n int) string {
	var b []byte
	for i := 0; len(b) < n; i++ {
		sum := decoySum(label+"#"+strconv.Itoa(i), authid)
		b = base64.RawStdEncoding.AppendEncode(b, sum)
	}
	return string(b[:n])
}
