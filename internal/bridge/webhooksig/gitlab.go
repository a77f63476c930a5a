package webhooksig

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
)

// verifyGitLab checks that X-Gitlab-Token equals the secret. GitLab sends
// the secret itself, so the header must never be published (see
// CredentialHeaders). The comparison is on SHA-256 digests, so its time
// depends on neither the contents nor the length of the two strings.
func verifyGitLab(secret string, h http.Header) error {
	v := header(h, hdrGitLab)
	if v == "" {
		return missing(GitLab, hdrGitLab)
	}
	got := sha256.Sum256([]byte(v))
	want := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return fail(GitLab, hdrGitLab, ErrInvalid, "token does not match")
	}
	return nil
}
