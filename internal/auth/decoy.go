package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"math/rand/v2"
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
//
// A decoy must also cost what a real challenge costs, in Start (before the
// CHALLENGE is sent, so a client can time it) and in Verify: whatever is
// expensive is made once, when the authenticator is built, and Start
// derives the decoy for every authid, known or not, so that both take the
// same path (F9, docs/SECURITY.md).

// decoyKey is the per-process key of the decoys. Written once, at package
// initialisation; read-only afterwards.
var decoyKey = randomBytes(32)

// decoySum returns HMAC-SHA256(decoyKey, label || 0 || authid): stable for
// one authid within the process, unpredictable without the key.
func decoySum(label, authid string) [32]byte {
	m := hmac.New(sha256.New, decoyKey)
	m.Write([]byte(label))
	m.Write([]byte{0})
	m.Write([]byte(authid))
	var sum [32]byte
	m.Sum(sum[:0])
	return sum
}

// decoyRand returns a generator of the decoy choices for authid: the
// same sequence for one authid within the process, unpredictable without
// decoyKey (ChaCha8 seeded with decoySum).
func decoyRand(label, authid string) *rand.Rand {
	return rand.New(rand.NewChaCha8(decoySum(label, authid)))
}

// saltAlphabet is the alphabet of salt's letters and digits, for decoy
// salts that look like it: its digits, lower and upper case letters, each
// class whole if salt has one of it, and only hex digits if every letter
// and digit of salt is one (a hex salt). "" if salt has none.
func saltAlphabet(salt string) string {
	var digit, lower, upper bool
	hexOnly := true
	for _, c := range []byte(salt) {
		switch {
		case '0' <= c && c <= '9':
			digit = true
		case 'a' <= c && c <= 'z':
			lower, hexOnly = true, hexOnly && c <= 'f'
		case 'A' <= c && c <= 'Z':
			upper, hexOnly = true, hexOnly && c <= 'F'
		}
	}
	var a string
	if digit || (hexOnly && (lower || upper)) {
		a += "0123456789"
	}
	if lower {
		a += pick(hexOnly, "abcdef", "abcdefghijklmnopqrstuvwxyz")
	}
	if upper {
		a += pick(hexOnly, "ABCDEF", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
	}
	return a
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// decoySalt returns a salt shaped like salt: as long, with its other
// characters (punctuation, '=' padding, non-ASCII) where salt has them,
// and a letter or digit of alphabet (saltAlphabet(salt)) drawn from r
// wherever salt has one.
func decoySalt(r *rand.Rand, salt, alphabet string) string {
	b := []byte(salt)
	for i, c := range b {
		if isAlnum(c) {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
	}
	return string(b)
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
