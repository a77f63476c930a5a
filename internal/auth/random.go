package auth

import (
	"crypto/rand"
	"strings"
)

// serialNumber returns a random authid such as "K3QZ-7MFA-2XWB-P4LD-NA6E-YT2R"
// (six groups of four base32 letters, 120 random bits), in the manner of
// the serial numbers Crossbar gives anonymous sessions.
func serialNumber() string {
	const groups, size = 6, 4
	t := rand.Text() // at least 26 base32 letters (128 bits)
	var b strings.Builder
	b.Grow(groups*size + groups - 1)
	for i := range groups {
		if i > 0 {
			b.WriteByte('-')
		}
		b.WriteString(t[i*size : (i+1)*size])
	}
	return b.String()
}

// randomBytes returns n bytes from crypto/rand (which never fails).
func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}
