package webhooksig

import (
	"net/http"
	"strings"
)

// Scheme names a webhook signature scheme, as written in the configuration
// option "provider".
type Scheme string

// The supported schemes.
const (
	GitHub   Scheme = "github"   // X-Hub-Signature-256 (or SHA-1 X-Hub-Signature)
	GitLab   Scheme = "gitlab"   // X-Gitlab-Token carries the secret itself
	Stripe   Scheme = "stripe"   // Stripe-Signature: t=...,v1=...
	Slack    Scheme = "slack"    // X-Slack-Signature + X-Slack-Request-Timestamp
	Shopify  Scheme = "shopify"  // X-Shopify-Hmac-Sha256
	Standard Scheme = "standard" // Standard Webhooks: webhook-id/-timestamp/-signature
)

// Header names, in canonical form.
const (
	hdrGitHub256      = "X-Hub-Signature-256"
	hdrGitHub1        = "X-Hub-Signature"
	hdrGitLab         = "X-Gitlab-Token"
	hdrStripe         = "Stripe-Signature"
	hdrSlack          = "X-Slack-Signature"
	hdrSlackTimestamp = "X-Slack-Request-Timestamp"
	hdrShopify        = "X-Shopify-Hmac-Sha256"
	hdrStandardID     = "Webhook-Id"
	hdrStandardTime   = "Webhook-Timestamp"
	hdrStandardSig    = "Webhook-Signature"
)

// schemes lists every scheme in detection order.
var schemes = []Scheme{GitHub, GitLab, Stripe, Slack, Shopify, Standard}

// ParseScheme returns the scheme called name (case-insensitive) and whether
// there is one.
func ParseScheme(name string) (Scheme, bool) {
	for _, s := range schemes {
		if strings.EqualFold(name, string(s)) {
			return s, true
		}
	}
	return "", false
}

// Detect recognises the scheme of a request by its signature header, for a
// configuration that does not pin one. The first scheme whose signature
// header is present wins, in the order GitHub (X-Hub-Signature-256 or
// X-Hub-Signature; Verify prefers SHA-256 when both are sent), GitLab,
// Stripe, Slack, Shopify, Standard Webhooks. It reports false when none is.
func Detect(h http.Header) (Scheme, bool) {
	for _, s := range schemes {
		for _, name := range signatureHeaders(s) {
			if header(h, name) != "" {
				return s, true
			}
		}
	}
	return "", false
}

// signatureHeaders returns the headers whose presence identifies s.
func signatureHeaders(s Scheme) []string {
	switch s {
	case GitHub:
		return []string{hdrGitHub256, hdrGitHub1}
	case GitLab:
		return []string{hdrGitLab}
	case Stripe:
		return []string{hdrStripe}
	case Slack:
		return []string{hdrSlack}
	case Shopify:
		return []string{hdrShopify}
	case Standard:
		return []string{hdrStandardSig}
	}
	return nil
}

// CredentialHeaders returns the canonical names of the headers of scheme s
// that carry the secret itself and must not be published: X-Gitlab-Token for
// GitLab, none for the MAC-based schemes. The slice is new on every call.
func CredentialHeaders(s Scheme) []string {
	if s == GitLab {
		return []string{hdrGitLab}
	}
	return nil
}

// header returns the first value of the header called name, trimmed, or ""
// when it is absent. The canonical key is tried first, then any key equal
// to name ignoring case (for maps not built through Header.Set).
func header(h http.Header, name string) string {
	if v := h.Values(name); len(v) > 0 {
		return strings.TrimSpace(v[0])
	}
	for k, v := range h {
		if len(v) > 0 && strings.EqualFold(k, name) {
			return strings.TrimSpace(v[0])
		}
	}
	return ""
}
