package webhooksig

import (
	"crypto/sha256"
	"net/http"
	"time"
)

// verifySlack checks X-Slack-Signature = "v0=" + hex(HMAC-SHA256(secret,
// "v0:" + X-Slack-Request-Timestamp + ":" + body)), then the timestamp
// window.
func verifySlack(secret string, h http.Header, body []byte, now time.Time) error {
	sig := header(h, hdrSlack)
	if sig == "" {
		return missing(Slack, hdrSlack)
	}
	tsText := header(h, hdrSlackTimestamp)
	ts, err := parseTimestamp(Slack, hdrSlackTimestamp, tsText)
	if err != nil {
		return err
	}
	err = checkHexMAC(Slack, hdrSlack, "v0=", sha256.New, secret, sig,
		[]byte("v0:"), []byte(tsText), []byte(":"), body)
	if err != nil {
		return err
	}
	return checkFresh(Slack, hdrSlackTimestamp, ts, now)
}
