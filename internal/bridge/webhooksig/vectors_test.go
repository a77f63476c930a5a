package webhooksig

import (
	"net/http"
	"testing"
	"time"
)

// Published worked examples, and values computed outside Go (Python's hmac
// and base64 modules) where a provider publishes none.
const (
	// docs.github.com, "Validating webhook deliveries", testing section.
	ghDocSecret = "It's a Secret to Everybody"
	ghDocBody   = "Hello, World!"
	ghDocSig256 = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
	ghDocSig1   = "sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59" // Python

	// api.slack.com, "Verifying requests from Slack", worked example.
	slackDocSecret = "8f742231b10e8888abcd99yyyzzz85a5"
	slackDocTS     = "1531420618"
	slackDocBody   = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
	slackDocSig    = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"

	// The Standard Webhooks specification's test vector.
	stdDocSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	stdDocID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	stdDocTS     = "1614265330"
	stdDocBody   = `{"test": 2432232314}`
	stdDocSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

	// Standard Webhooks with a raw (non-whsec_) secret that is also valid
	// base64, signed with its raw bytes (Python).
	stdRawSecret = "abcd1234"
	stdRawSig    = "v1,RMUScokNI9oqdeJZk1xysV17UJrCXvzV0Lnzfyv37A0="

	// Stripe publishes no complete example; Python, t=1700000000.
	stripePySecret = "whsec_test_secret"
	stripePyBody   = `{"id":"evt_1","object":"event"}`
	stripePyV1     = "0c8670ed117751cc551a20e35839447075c42800ea3cf3e8a2fbda99cd1e6edd"

	// Shopify publishes no complete example; Python.
	shopifyPySecret = "hush"
	shopifyPyBody   = `{"id":820982911946154508}`
	shopifyPySig    = "qBvrsZF7RfB1iS6BX6IHqJTp5L911P7intnPeTPsH0I="
)

func TestPublishedVectors(t *testing.T) {
	slackTime := time.Unix(1531420618, 0)
	stdTime := time.Unix(1614265330, 0)
	tests := []struct {
		name   string
		scheme Scheme
		secret string
		h      http.Header
		body   string
		now    time.Time
	}{
		{"github sha256 docs", GitHub, ghDocSecret, hdr("X-Hub-Signature-256", ghDocSig256), ghDocBody, testNow},
		{"github sha1", GitHub, ghDocSecret, hdr("X-Hub-Signature", ghDocSig1), ghDocBody, testNow},
		{"slack docs", Slack, slackDocSecret,
			hdr("X-Slack-Signature", slackDocSig, "X-Slack-Request-Timestamp", slackDocTS), slackDocBody, slackTime.Add(time.Minute)},
		{"standard docs", Standard, stdDocSecret,
			hdr("webhook-id", stdDocID, "webhook-timestamp", stdDocTS, "webhook-signature", stdDocSig), stdDocBody, stdTime},
		{"standard docs, secret without prefix", Standard, stdDocSecret[len("whsec_"):],
			hdr("webhook-id", stdDocID, "webhook-timestamp", stdDocTS, "webhook-signature", stdDocSig), stdDocBody, stdTime},
		{"standard raw secret that is also base64", Standard, stdRawSecret,
			hdr("webhook-id", "msg_1", "webhook-timestamp", "1700000000", "webhook-signature", stdRawSig), "{}", testNow},
		{"stripe", Stripe, stripePySecret,
			hdr("Stripe-Signature", "t=1700000000,v1="+stripePyV1), stripePyBody, testNow},
		{"shopify", Shopify, shopifyPySecret, hdr("X-Shopify-Hmac-Sha256", shopifyPySig), shopifyPyBody, testNow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Verify(tt.scheme, tt.secret, tt.h, []byte(tt.body), tt.now); err != nil {
				t.Fatalf("Verify = %v, want nil", err)
			}
			if s, ok := Detect(tt.h); !ok || s != tt.scheme {
				t.Errorf("Detect = %q, %v; want %q", s, ok, tt.scheme)
			}
		})
	}
}

// The test signers must reproduce the published values, or the generated
// cases in verify_test.go would prove nothing.
func TestSignersMatchVectors(t *testing.T) {
	checks := []struct{ name, got, want string }{
		{"github256", githubSig(ghDocSecret, ghDocBody), ghDocSig256},
		{"github1", githubSHA1(ghDocSecret, ghDocBody), ghDocSig1},
		{"slack", slackSig(slackDocSecret, 1531420618, slackDocBody), slackDocSig},
		{"stripe", stripeV1(stripePySecret, 1700000000, stripePyBody), stripePyV1},
		{"shopify", shopifySig(shopifyPySecret, shopifyPyBody), shopifyPySig},
		{"standard raw", standardSig([]byte(stdRawSecret), "msg_1", 1700000000, "{}"), stdRawSig},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: signer gives %s, want %s", c.name, c.got, c.want)
		}
	}
}
