// Package webhooksig verifies the signatures that webhook senders put on
// their HTTP requests: GitHub, GitLab, Stripe, Slack, Shopify and Standard
// Webhooks (standardwebhooks.com, also used by Svix-based senders).
//
// The package is pure: no I/O, no logging, no goroutines, no state. Every
// function is safe for concurrent use. The Webhook service of package bridge
// calls [Verify] once per request, with the scheme pinned by configuration or
// recognised by [Detect], and leaves the headers named by [CredentialHeaders]
// out of the published event.
//
// # Errors
//
// [Verify] returns nil for an authentic request. Otherwise its error wraps
// exactly one of [ErrMissing] (a header or value the scheme needs is absent),
// [ErrInvalid] (present but malformed, or the MAC does not match) or
// [ErrExpired] (the MAC matches but the signed timestamp is more than
// [Tolerance] away from now). The message names the scheme, the header and
// what failed; it never contains the secret, the expected MAC or the value
// received, so it can be logged as it is.
//
// ErrExpired is only reported for a request whose MAC is valid: an attacker
// without the secret always gets ErrMissing or ErrInvalid, and an ErrExpired
// in the log means a genuine but stale delivery (a replay, or clock skew).
//
// # Header lookup
//
// Header names are matched case-insensitively: the canonical key is tried
// first, then any key of the map that equals the name ignoring case, so a
// hand-built http.Header with lower-case keys works too. When a header has
// several values, the first one is used. Values are trimmed of surrounding
// white space. A header present with an empty value counts as missing.
//
// # Timestamps
//
// Timestamps (Stripe t=, X-Slack-Request-Timestamp, webhook-timestamp) are
// decimal integers of Unix seconds with at most 18 digits and no sign;
// anything else is ErrInvalid. The MAC is computed over the timestamp text
// exactly as received.
//
// # Secrets
//
// The configured secret is used as its bytes for every scheme except Standard
// Webhooks, Stripe's "whsec_..." signing secret included (Stripe uses it
// as-is). For Standard Webhooks, a secret "whsec_<base64>" means the key is
// the base64 decoding of the part after the prefix, as the specification
// says; a malformed one is reported by [CheckSecret] and makes every Verify
// fail. A secret without the prefix is tried both ways: as base64 when it
// decodes (standard alphabet, padded or not), and as its raw bytes, so both
// the specification's format and senders that sign with a plain string
// verify. Trying a second key derived from the same secret does not make a
// forgery easier in any practical sense.
//
// An empty secret never verifies anything.
//
// # Scheme detection and shared secrets
//
// When the scheme is not pinned, [Detect] picks it from the headers present,
// so the sender chooses the scheme. Several schemes sign HMAC-SHA256(secret,
// prefix + body) with the same key, so with detection a signature captured
// from a timestamped scheme (Stripe, Slack) can be presented as a GitHub or
// Shopify signature of the body "<prefix><original body>", which carries no
// timestamp. Pin the provider when the timestamp window matters.
package webhooksig
