package webhooksig

import (
	"net/http"
	"strconv"
	"time"
)

// Tolerance is how far a signed timestamp may be from now, in either
// direction, for the timestamped schemes (Stripe, Slack, Standard Webhooks).
const Tolerance = 300 * time.Second

// maxTimestampDigits keeps a parsed timestamp far from int64 overflow.
const maxTimestampDigits = 18

// Verify checks that the request with headers h and body body carries a valid
// signature of scheme s made with secret. now is the reference time for the
// timestamp window; the zero Time means time.Now(). It returns nil when the
// request is authentic, otherwise an error wrapping ErrMissing, ErrInvalid
// or ErrExpired (see the package documentation). An empty secret or an
// unknown scheme is ErrInvalid.
func Verify(s Scheme, secret string, h http.Header, body []byte, now time.Time) error {
	if secret == "" {
		return fail(s, "", ErrInvalid, "no secret configured")
	}
	if now.IsZero() {
		now = time.Now()
	}
	switch s {
	case GitHub:
		return verifyGitHub(secret, h, body)
	case GitLab:
		return verifyGitLab(secret, h)
	case Stripe:
		return verifyStripe(secret, h, body, now)
	case Slack:
		return verifySlack(secret, h, body, now)
	case Shopify:
		return verifyShopify(secret, h, body)
	case Standard:
		return verifyStandard(secret, h, body, now)
	}
	return fail("", "", ErrInvalid, "unknown scheme")
}

// CheckSecret reports whether secret can ever verify a request of scheme s,
// for configuration validation: it must not be empty, and for Standard
// Webhooks a "whsec_" secret must be base64 after the prefix. The scheme ""
// (not pinned, detected per request) checks the rules of every scheme.
func CheckSecret(s Scheme, secret string) error {
	if secret == "" {
		return fail(s, "", ErrInvalid, "secret is empty")
	}
	if s == Standard || s == "" {
		if _, err := standardKeys(secret); err != nil {
			return err
		}
	}
	return nil
}

// parseTimestamp parses a Unix-seconds timestamp: 1 to 18 ASCII digits.
func parseTimestamp(s Scheme, hdr, v string) (int64, error) {
	if v == "" {
		return 0, fail(s, hdr, ErrMissing, "timestamp missing")
	}
	if len(v) > maxTimestampDigits || !allDigits(v) {
		return 0, fail(s, hdr, ErrInvalid, "timestamp is not an integer of Unix seconds")
	}
	ts, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fail(s, hdr, ErrInvalid, "timestamp is not an integer of Unix seconds")
	}
	return ts, nil
}

func allDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// checkFresh returns ErrExpired when ts is more than Tolerance from now.
func checkFresh(s Scheme, hdr string, ts int64, now time.Time) error {
	d := now.Unix() - ts
	if d < 0 {
		d = -d
	}
	if d <= int64(Tolerance/time.Second) {
		return nil
	}
	return fail(s, hdr, ErrExpired, "timestamp is "+strconv.FormatInt(d, 10)+
		"s from now, tolerance "+strconv.FormatInt(int64(Tolerance/time.Second), 10)+"s")
}
