package webhooksig

import (
	"crypto/hmac"
	"encoding/hex"
	"net/http"
	"strings"
	"time"
)

// stripeHeader is a parsed Stripe-Signature value.
type stripeHeader struct {
	t  string   // the t= timestamp text, "" when absent
	v1 []string // every v1= signature, in order
}

// parseStripeHeader splits "t=<unix>,v1=<hex>[,v1=...][,v0=...]". Items of
// other schemes (v0) and items without "=" are ignored, as Stripe's own
// libraries do; a second t= is ErrInvalid.
func parseStripeHeader(v string) (stripeHeader, error) {
	var sh stripeHeader
	seenT := false
	for item := range strings.SplitSeq(v, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			continue
		}
		switch key {
		case "t":
			if seenT {
				return sh, fail(Stripe, hdrStripe, ErrInvalid, "more than one t= timestamp")
			}
			seenT, sh.t = true, val
		case "v1":
			sh.v1 = append(sh.v1, val)
		}
	}
	return sh, nil
}

// verifyStripe checks that one v1 of Stripe-Signature is hex(HMAC-SHA256(
// secret, t + "." + body)), then that t is within Tolerance of now.
func verifyStripe(secret string, h http.Header, body []byte, now time.Time) error {
	v := header(h, hdrStripe)
	if v == "" {
		return missing(Stripe, hdrStripe)
	}
	sh, err := parseStripeHeader(v)
	if err != nil {
		return err
	}
	ts, err := parseTimestamp(Stripe, hdrStripe, sh.t)
	if err != nil {
		return err
	}
	if len(sh.v1) == 0 {
		return fail(Stripe, hdrStripe, ErrMissing, "no v1= signature")
	}
	want := sum256(secret, []byte(sh.t), []byte("."), body)
	if !anyHexEqual(sh.v1, want) {
		return fail(Stripe, hdrStripe, ErrInvalid, "no v1= signature matches")
	}
	return checkFresh(Stripe, hdrStripe, ts, now)
}

// anyHexEqual reports whether one of the hex strings decodes to want.
// Malformed entries are skipped: another entry may still match.
func anyHexEqual(sigs []string, want []byte) bool {
	for _, s := range sigs {
		got, err := hex.DecodeString(s)
		if err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}
