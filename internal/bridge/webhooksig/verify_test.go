package webhooksig

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

const (
	secret = "s3cr3t-for-tests"
	body   = `{"action":"opened","number":1}`
)

type verifyCase struct {
	name   string
	scheme Scheme
	secret string // secret when ""
	h      http.Header
	body   string // body when ""
	now    time.Time
	want   error  // nil, ErrMissing, ErrInvalid or ErrExpired
	inMsg  string // substring the error text must contain, when set
}

func runVerifyCases(t *testing.T, cases []verifyCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			sec, b, now := tt.secret, tt.body, tt.now
			if sec == "" {
				sec = secret
			}
			if b == "" {
				b = body
			}
			if now.IsZero() {
				now = testNow
			}
			err := Verify(tt.scheme, sec, tt.h, []byte(b), now)
			if kindOf(err) != kindOf(tt.want) {
				t.Fatalf("Verify = %v (%s), want %s", err, kindOf(err), kindOf(tt.want))
			}
			if err == nil {
				return
			}
			msg := err.Error()
			if tt.inMsg != "" && !strings.Contains(msg, tt.inMsg) {
				t.Errorf("error %q does not mention %q", msg, tt.inMsg)
			}
			assertNoLeak(t, msg, sec, tt.h)
		})
	}
}

// assertNoLeak checks that an error text carries neither the secret nor any
// received header value long enough to matter.
func assertNoLeak(t *testing.T, msg, secret string, h http.Header) {
	t.Helper()
	if strings.Contains(msg, secret) {
		t.Errorf("error %q contains the secret", msg)
	}
	for _, vs := range h {
		for _, v := range vs {
			if len(v) >= 12 && strings.Contains(msg, v) {
				t.Errorf("error %q echoes the received value %q", msg, v)
			}
		}
	}
}

func TestVerifyGitHub(t *testing.T) {
	good := githubSig(secret, body)
	good1 := githubSHA1(secret, body)
	runVerifyCases(t, []verifyCase{
		{name: "valid sha256", scheme: GitHub, h: hdr("X-Hub-Signature-256", good)},
		{name: "valid sha1 alone", scheme: GitHub, h: hdr("X-Hub-Signature", good1)},
		{name: "sha256 preferred, bad sha1 ignored", scheme: GitHub,
			h: hdr("X-Hub-Signature-256", good, "X-Hub-Signature", "sha1=00")},
		{name: "bad sha256 never falls back to sha1", scheme: GitHub,
			h: hdr("X-Hub-Signature-256", githubSig("other", body), "X-Hub-Signature", good1), want: ErrInvalid, inMsg: "X-Hub-Signature-256"},
		{name: "upper-case hex and prefix", scheme: GitHub, h: hdr("X-Hub-Signature-256", strings.ToUpper(good))},
		{name: "wrong signature", scheme: GitHub, h: hdr("X-Hub-Signature-256", flipHex(good)), want: ErrInvalid, inMsg: "does not match"},
		{name: "wrong secret", scheme: GitHub, h: hdr("X-Hub-Signature-256", githubSig("wrong", body)), want: ErrInvalid},
		{name: "other body", scheme: GitHub, h: hdr("X-Hub-Signature-256", good), body: body + " ", want: ErrInvalid},
		{name: "sha1 wrong secret", scheme: GitHub, h: hdr("X-Hub-Signature", githubSHA1("wrong", body)), want: ErrInvalid, inMsg: "X-Hub-Signature:"},
		{name: "missing", scheme: GitHub, h: hdr("X-Other", "x"), want: ErrMissing, inMsg: "X-Hub-Signature-256"},
		{name: "empty value", scheme: GitHub, h: hdr("X-Hub-Signature-256", ""), want: ErrMissing},
		{name: "malformed hex", scheme: GitHub, h: hdr("X-Hub-Signature-256", "sha256=zz"+good[9:]), want: ErrInvalid, inMsg: "hexadecimal"},
		{name: "odd hex length", scheme: GitHub, h: hdr("X-Hub-Signature-256", good[:len(good)-1]), want: ErrInvalid},
		{name: "truncated", scheme: GitHub, h: hdr("X-Hub-Signature-256", good[:len(good)-2]), want: ErrInvalid, inMsg: "length"},
		{name: "no prefix", scheme: GitHub, h: hdr("X-Hub-Signature-256", good[len("sha256="):]), want: ErrInvalid, inMsg: "sha256="},
		{name: "sha1 value in sha256 header", scheme: GitHub, h: hdr("X-Hub-Signature-256", good1), want: ErrInvalid},
		{name: "sha256 value in sha1 header", scheme: GitHub, h: hdr("X-Hub-Signature", good), want: ErrInvalid},
	})
}

func TestVerifyGitLab(t *testing.T) {
	runVerifyCases(t, []verifyCase{
		{name: "valid", scheme: GitLab, h: hdr("X-Gitlab-Token", secret)},
		{name: "wrong", scheme: GitLab, h: hdr("X-Gitlab-Token", "s3cr3t-for-tesTS"), want: ErrInvalid, inMsg: "X-Gitlab-Token"},
		{name: "prefix of secret", scheme: GitLab, h: hdr("X-Gitlab-Token", secret[:5]), want: ErrInvalid},
		{name: "secret plus more", scheme: GitLab, h: hdr("X-Gitlab-Token", secret+"x"), want: ErrInvalid},
		{name: "missing", scheme: GitLab, h: hdr(), want: ErrMissing},
		{name: "empty", scheme: GitLab, h: hdr("X-Gitlab-Token", ""), want: ErrMissing},
	})
}

func TestVerifyStripe(t *testing.T) {
	ts := testNow.Unix()
	v1 := stripeV1(secret, ts, body)
	tsText := unix(testNow)
	sig := func(v string) http.Header { return hdr("Stripe-Signature", v) }
	runVerifyCases(t, []verifyCase{
		{name: "valid", scheme: Stripe, h: sig("t=" + tsText + ",v1=" + v1)},
		{name: "valid with v0 after", scheme: Stripe, h: sig("t=" + tsText + ",v1=" + v1 + ",v0=" + strings.Repeat("0", 64))},
		{name: "several v1, last valid", scheme: Stripe, h: sig("t=" + tsText + ",v1=" + stripeV1("old", ts, body) + ",v1=zz,v1=" + v1)},
		{name: "several v1, first valid", scheme: Stripe, h: sig("t=" + tsText + ",v1=" + v1 + ",v1=" + stripeV1("old", ts, body))},
		{name: "v1 before t, spaces", scheme: Stripe, h: sig("v1=" + v1 + ", t=" + tsText)},
		{name: "upper-case hex", scheme: Stripe, h: sig("t=" + tsText + ",v1=" + strings.ToUpper(v1))},
		{name: "wrong signature", scheme: Stripe, h: sig("t=" + tsText + ",v1=" + flipHex(v1)), want: ErrInvalid, inMsg: "Stripe-Signature"},
		{name: "wrong secret", scheme: Stripe, h: sig("t=" + tsText + ",v1=" + stripeV1("wrong", ts, body)), want: ErrInvalid},
		{name: "signed other timestamp", scheme: Stripe, h: sig("t=" + unix(testNow.Add(time.Second)) + ",v1=" + v1), want: ErrInvalid},
		{name: "malformed hex only", scheme: Stripe, h: sig("t=" + tsText + ",v1=xyz"), want: ErrInvalid},
		{name: "v0 only", scheme: Stripe, h: sig("t=" + tsText + ",v0=" + v1), want: ErrMissing, inMsg: "v1="},
		{name: "missing header", scheme: Stripe, h: hdr(), want: ErrMissing},
		{name: "missing t", scheme: Stripe, h: sig("v1=" + v1), want: ErrMissing, inMsg: "timestamp"},
		{name: "empty t", scheme: Stripe, h: sig("t=,v1=" + v1), want: ErrMissing},
		{name: "non-numeric t", scheme: Stripe, h: sig("t=17e8,v1=" + v1), want: ErrInvalid, inMsg: "integer"},
		{name: "signed t", scheme: Stripe, h: sig("t=+" + tsText + ",v1=" + v1), want: ErrInvalid},
		{name: "huge t", scheme: Stripe, h: sig("t=99999999999999999999,v1=" + v1), want: ErrInvalid},
		{name: "two t", scheme: Stripe, h: sig("t=" + tsText + ",t=" + tsText + ",v1=" + v1), want: ErrInvalid, inMsg: "more than one"},
		{name: "garbage", scheme: Stripe, h: sig("garbage"), want: ErrMissing},
		{name: "expired", scheme: Stripe, h: sig("t=" + tsText + ",v1=" + v1), now: testNow.Add(Tolerance + time.Second), want: ErrExpired, inMsg: "301s"},
		{name: "future", scheme: Stripe, h: sig("t=" + tsText + ",v1=" + v1), now: testNow.Add(-Tolerance - time.Second), want: ErrExpired},
		{name: "at the edge, past", scheme: Stripe, h: sig("t=" + tsText + ",v1=" + v1), now: testNow.Add(Tolerance)},
		{name: "at the edge, future", scheme: Stripe, h: sig("t=" + tsText + ",v1=" + v1), now: testNow.Add(-Tolerance)},
		{name: "expired and wrong is invalid", scheme: Stripe, h: sig("t=" + tsText + ",v1=" + flipHex(v1)), now: testNow.Add(time.Hour), want: ErrInvalid},
	})
}

func TestVerifySlack(t *testing.T) {
	ts := testNow.Unix()
	good := slackSig(secret, ts, body)
	tsText := unix(testNow)
	runVerifyCases(t, []verifyCase{
		{name: "valid", scheme: Slack, h: hdr("X-Slack-Signature", good, "X-Slack-Request-Timestamp", tsText)},
		{name: "docs example today is expired", scheme: Slack, secret: slackDocSecret, body: slackDocBody,
			h: hdr("X-Slack-Signature", slackDocSig, "X-Slack-Request-Timestamp", slackDocTS), want: ErrExpired, inMsg: "X-Slack-Request-Timestamp"},
		{name: "wrong signature", scheme: Slack, h: hdr("X-Slack-Signature", flipHex(good), "X-Slack-Request-Timestamp", tsText), want: ErrInvalid},
		{name: "wrong secret", scheme: Slack, h: hdr("X-Slack-Signature", slackSig("wrong", ts, body), "X-Slack-Request-Timestamp", tsText), want: ErrInvalid},
		{name: "other timestamp", scheme: Slack, h: hdr("X-Slack-Signature", good, "X-Slack-Request-Timestamp", unix(testNow.Add(-time.Second))), want: ErrInvalid},
		{name: "wrong version", scheme: Slack, h: hdr("X-Slack-Signature", "v1="+good[3:], "X-Slack-Request-Timestamp", tsText), want: ErrInvalid, inMsg: "v0="},
		{name: "malformed hex", scheme: Slack, h: hdr("X-Slack-Signature", "v0=nothex", "X-Slack-Request-Timestamp", tsText), want: ErrInvalid},
		{name: "missing signature", scheme: Slack, h: hdr("X-Slack-Request-Timestamp", tsText), want: ErrMissing, inMsg: "X-Slack-Signature"},
		{name: "missing timestamp", scheme: Slack, h: hdr("X-Slack-Signature", good), want: ErrMissing, inMsg: "X-Slack-Request-Timestamp"},
		{name: "fractional timestamp", scheme: Slack, h: hdr("X-Slack-Signature", good, "X-Slack-Request-Timestamp", tsText+".5"), want: ErrInvalid},
		{name: "negative timestamp", scheme: Slack, h: hdr("X-Slack-Signature", good, "X-Slack-Request-Timestamp", "-1"), want: ErrInvalid},
		{name: "expired", scheme: Slack, h: hdr("X-Slack-Signature", good, "X-Slack-Request-Timestamp", tsText), now: testNow.Add(10 * time.Minute), want: ErrExpired},
		{name: "future", scheme: Slack, h: hdr("X-Slack-Signature", good, "X-Slack-Request-Timestamp", tsText), now: testNow.Add(-10 * time.Minute), want: ErrExpired},
	})
}

func TestVerifyShopify(t *testing.T) {
	good := shopifySig(secret, body)
	runVerifyCases(t, []verifyCase{
		{name: "valid", scheme: Shopify, h: hdr("X-Shopify-Hmac-Sha256", good)},
		{name: "valid unpadded", scheme: Shopify, h: hdr("X-Shopify-Hmac-Sha256", strings.TrimRight(good, "="))},
		{name: "wrong signature", scheme: Shopify, h: hdr("X-Shopify-Hmac-Sha256", shopifySig(secret, body+"x")), want: ErrInvalid},
		{name: "wrong secret", scheme: Shopify, h: hdr("X-Shopify-Hmac-Sha256", shopifySig("wrong", body)), want: ErrInvalid, inMsg: "X-Shopify-Hmac-Sha256"},
		{name: "hex instead of base64", scheme: Shopify, h: hdr("X-Shopify-Hmac-Sha256", githubSig(secret, body)[7:]), want: ErrInvalid},
		{name: "malformed base64", scheme: Shopify, h: hdr("X-Shopify-Hmac-Sha256", "!!!notbase64"), want: ErrInvalid, inMsg: "base64"},
		{name: "missing", scheme: Shopify, h: hdr(), want: ErrMissing},
	})
}

func TestVerifyStandard(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	whsec := "whsec_" + base64.StdEncoding.EncodeToString(key)
	ts := testNow.Unix()
	tsText := unix(testNow)
	good := standardSig(key, "msg_1", ts, body)
	std := func(id, tsv, sig string) http.Header {
		return hdr("webhook-id", id, "webhook-timestamp", tsv, "webhook-signature", sig)
	}
	runVerifyCases(t, []verifyCase{
		{name: "valid", scheme: Standard, secret: whsec, h: std("msg_1", tsText, good)},
		{name: "several entries, one valid", scheme: Standard, secret: whsec,
			h: std("msg_1", tsText, "v1a,AAAA "+standardSig([]byte("old-key"), "msg_1", ts, body)+" v1,%%% "+good)},
		{name: "several entries, none valid", scheme: Standard, secret: whsec,
			h: std("msg_1", tsText, standardSig([]byte("old"), "msg_1", ts, body)+" "+standardSig([]byte("older"), "msg_1", ts, body)), want: ErrInvalid, inMsg: "Webhook-Signature"},
		{name: "raw secret, not base64", scheme: Standard, secret: "plain-text-secret",
			h: std("msg_1", tsText, standardSig([]byte("plain-text-secret"), "msg_1", ts, body))},
		{name: "whsec_ secret used raw is wrong", scheme: Standard, secret: whsec,
			h: std("msg_1", tsText, standardSig([]byte(whsec), "msg_1", ts, body)), want: ErrInvalid},
		{name: "wrong secret", scheme: Standard, secret: whsec, h: std("msg_1", tsText, standardSig([]byte("wrong"), "msg_1", ts, body)), want: ErrInvalid},
		{name: "other id", scheme: Standard, secret: whsec, h: std("msg_2", tsText, good), want: ErrInvalid},
		{name: "id with dot", scheme: Standard, secret: whsec, h: std("msg.1", tsText, good), want: ErrInvalid, inMsg: "Webhook-Id"},
		{name: "only v1a", scheme: Standard, secret: whsec, h: std("msg_1", tsText, "v1a,"+good[3:]), want: ErrMissing, inMsg: "no v1"},
		{name: "no comma", scheme: Standard, secret: whsec, h: std("msg_1", tsText, good[3:]), want: ErrMissing},
		{name: "malformed base64", scheme: Standard, secret: whsec, h: std("msg_1", tsText, "v1,@@@@"), want: ErrInvalid},
		{name: "missing id", scheme: Standard, secret: whsec, h: std("", tsText, good), want: ErrMissing, inMsg: "Webhook-Id"},
		{name: "missing timestamp", scheme: Standard, secret: whsec, h: std("msg_1", "", good), want: ErrMissing, inMsg: "Webhook-Timestamp"},
		{name: "missing signature", scheme: Standard, secret: whsec, h: std("msg_1", tsText, ""), want: ErrMissing, inMsg: "Webhook-Signature"},
		{name: "non-numeric timestamp", scheme: Standard, secret: whsec, h: std("msg_1", "2023-11-14T22:13:20Z", good), want: ErrInvalid},
		{name: "expired", scheme: Standard, secret: whsec, h: std("msg_1", tsText, good), now: testNow.Add(Tolerance + time.Second), want: ErrExpired},
		{name: "future", scheme: Standard, secret: whsec, h: std("msg_1", tsText, good), now: testNow.Add(-Tolerance - time.Second), want: ErrExpired},
		{name: "bad whsec_ secret", scheme: Standard, secret: "whsec_!!!", h: std("msg_1", tsText, good), want: ErrInvalid, inMsg: "configured secret"},
	})
}

func TestVerifyGeneral(t *testing.T) {
	good := githubSig(secret, body)
	if err := Verify(GitHub, "", hdr("X-Hub-Signature-256", githubSig("", body)), []byte(body), testNow); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty secret: %v, want ErrInvalid", err)
	}
	if err := Verify(Scheme("bitbucket"), secret, hdr("X-Hub-Signature-256", good), []byte(body), testNow); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown scheme: %v, want ErrInvalid", err)
	}
	if err := Verify(GitHub, secret, nil, []byte(body), testNow); !errors.Is(err, ErrMissing) {
		t.Errorf("nil header: %v, want ErrMissing", err)
	}
	// The zero now means time.Now().
	now := time.Now()
	h := hdr("X-Slack-Signature", slackSig(secret, now.Unix(), body), "X-Slack-Request-Timestamp", unix(now))
	if err := Verify(Slack, secret, h, []byte(body), time.Time{}); err != nil {
		t.Errorf("zero now: %v, want nil", err)
	}
}

// The error text must not reveal the expected MAC either.
func TestErrorDoesNotRevealExpectedMAC(t *testing.T) {
	want := githubSig(secret, body)
	err := Verify(GitHub, secret, hdr("X-Hub-Signature-256", flipHex(want)), []byte(body), testNow)
	if err == nil || strings.Contains(err.Error(), want[7:]) {
		t.Fatalf("error %v: want a mismatch that does not contain the expected MAC", err)
	}
}

// flipHex changes the last hex digit of v.
func flipHex(v string) string {
	last := v[len(v)-1]
	repl := byte('0')
	if last == '0' {
		repl = '1'
	}
	return v[:len(v)-1] + string(repl)
}
