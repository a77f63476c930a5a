package webhooksig

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzVerify feeds arbitrary header values, bodies and secrets to every
// scheme. Verify must never panic and must always return nil or an error
// wrapping one sentinel; a request signed the sender's way must verify.
func FuzzVerify(f *testing.F) {
	f.Add("sha256="+strings.Repeat("ab", 32), "1700000000", "msg_1", []byte(body), secret)
	f.Add("t=1700000000,v1=00,v1=zz,v0=1", "x", "", []byte{}, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	f.Add("v1,AAAA v1a,BBBB v1,", "-1", "a.b", []byte("\x00\xff"), "k")
	f.Add("v0=", "99999999999999999999", "  ", []byte(nil), "whsec_!!")
	f.Add(",,=,t=,t=1", "", "id", []byte("{}"), " ")
	f.Fuzz(func(t *testing.T, sig, ts, id string, b []byte, sec string) {
		h := http.Header{}
		for _, name := range []string{hdrGitHub256, hdrGitHub1, hdrGitLab, hdrStripe, hdrSlack, hdrShopify, hdrStandardSig} {
			h.Set(name, sig)
		}
		h.Set(hdrSlackTimestamp, ts)
		h.Set(hdrStandardTime, ts)
		h.Set(hdrStandardID, id)
		Detect(h)
		for _, s := range schemes {
			err := Verify(s, sec, h, b, testNow)
			if k := kindOf(err); strings.HasPrefix(k, "unwrapped") {
				t.Fatalf("%s: %s", s, k)
			}
			if s == GitLab && err == nil && strings.TrimSpace(sig) != sec {
				t.Fatalf("gitlab accepted a token that is not the secret")
			}
			_ = CheckSecret(s, sec)
		}
		roundTrip(t, id, b, sec)
	})
}

// roundTrip signs b as each sender would and checks that Verify accepts it.
func roundTrip(t *testing.T, id string, b []byte, sec string) {
	if sec == "" || sec != strings.TrimSpace(sec) {
		return
	}
	ts := testNow.Unix()
	tsText := unix(testNow)
	body := string(b)
	signed := map[Scheme]http.Header{
		GitHub:  hdr(hdrGitHub256, githubSig(sec, body)),
		GitLab:  hdr(hdrGitLab, sec),
		Stripe:  hdr(hdrStripe, "t="+tsText+",v1="+stripeV1(sec, ts, body)),
		Slack:   hdr(hdrSlack, slackSig(sec, ts, body), hdrSlackTimestamp, tsText),
		Shopify: hdr(hdrShopify, shopifySig(sec, body)),
	}
	id = strings.TrimSpace(id)
	if id != "" && !strings.Contains(id, ".") && !strings.HasPrefix(sec, standardSecretPrefix) {
		// Without the whsec_ prefix the raw bytes are always one of the keys.
		signed[Standard] = hdr(hdrStandardID, id, hdrStandardTime, tsText,
			hdrStandardSig, standardSig([]byte(sec), id, ts, body))
	}
	for s, h := range signed {
		if err := Verify(s, sec, h, b, testNow); err != nil {
			t.Fatalf("%s: signed request refused: %v", s, err)
		}
	}
}
