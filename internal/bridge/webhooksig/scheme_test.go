package webhooksig

import (
	"errors"
	"net/http"
	"slices"
	"testing"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		h    http.Header
		want Scheme // "" means not detected
	}{
		{"github sha256", hdr("X-Hub-Signature-256", "sha256=00"), GitHub},
		{"github sha1", hdr("X-Hub-Signature", "sha1=00"), GitHub},
		{"github both", hdr("X-Hub-Signature", "sha1=00", "X-Hub-Signature-256", "sha256=00"), GitHub},
		{"gitlab", hdr("X-Gitlab-Token", "t", "X-Gitlab-Event", "Push Hook"), GitLab},
		{"stripe", hdr("Stripe-Signature", "t=1,v1=00"), Stripe},
		{"slack", hdr("X-Slack-Signature", "v0=00", "X-Slack-Request-Timestamp", "1"), Slack},
		{"shopify", hdr("X-Shopify-Hmac-Sha256", "AA=="), Shopify},
		{"standard", hdr("webhook-id", "m", "webhook-timestamp", "1", "webhook-signature", "v1,AA=="), Standard},
		{"slack timestamp alone", hdr("X-Slack-Request-Timestamp", "1"), ""},
		{"standard id alone", hdr("webhook-id", "m"), ""},
		{"empty signature value", hdr("X-Hub-Signature-256", ""), ""},
		{"none", hdr("Content-Type", "application/json", "X-GitHub-Event", "push"), ""},
		{"nil", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Detect(tt.h)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("Detect = %q, %v; want %q, %v", got, ok, tt.want, tt.want != "")
			}
		})
	}
}

// Header names are matched ignoring case whether the map was built through
// Header.Set (canonical keys) or by hand with lower-case keys.
func TestHeaderNameCase(t *testing.T) {
	ts := testNow.Unix()
	tsText := unix(testNow)
	key := []byte("k")
	tests := []struct {
		scheme Scheme
		kv     []string
	}{
		{GitHub, []string{"x-hub-signature-256", githubSig(secret, body)}},
		{GitLab, []string{"x-gitlab-token", secret}},
		{Stripe, []string{"stripe-signature", "t=" + tsText + ",v1=" + stripeV1(secret, ts, body)}},
		{Slack, []string{"X-SLACK-SIGNATURE", slackSig(secret, ts, body), "x-slack-request-timestamp", tsText}},
		{Shopify, []string{"x-shopify-hmac-sha256", shopifySig(secret, body)}},
		{Standard, []string{"webhook-id", "msg_1", "WEBHOOK-TIMESTAMP", tsText, "webhook-signature", standardSig(key, "msg_1", ts, body)}},
	}
	for _, tt := range tests {
		sec := secret
		if tt.scheme == Standard {
			sec = "k" // not base64 (length 1): used raw
		}
		set, raw := http.Header{}, http.Header{}
		for i := 0; i < len(tt.kv); i += 2 {
			set.Set(tt.kv[i], tt.kv[i+1])
			raw[tt.kv[i]] = []string{tt.kv[i+1]}
		}
		for name, h := range map[string]http.Header{"Set": set, "raw": raw} {
			t.Run(string(tt.scheme)+"/"+name, func(t *testing.T) {
				if s, ok := Detect(h); !ok || s != tt.scheme {
					t.Errorf("Detect = %q, %v", s, ok)
				}
				if err := Verify(tt.scheme, sec, h, []byte(body), testNow); err != nil {
					t.Errorf("Verify = %v", err)
				}
			})
		}
	}
}

func TestParseScheme(t *testing.T) {
	for _, name := range []string{"github", "gitlab", "stripe", "slack", "shopify", "standard"} {
		s, ok := ParseScheme(name)
		if !ok || string(s) != name {
			t.Errorf("ParseScheme(%q) = %q, %v", name, s, ok)
		}
	}
	if s, ok := ParseScheme("GitHub"); !ok || s != GitHub {
		t.Errorf("ParseScheme(GitHub) = %q, %v; want case-insensitive", s, ok)
	}
	for _, name := range []string{"", "bitbucket", "github ", "svix"} {
		if s, ok := ParseScheme(name); ok {
			t.Errorf("ParseScheme(%q) = %q, true; want false", name, s)
		}
	}
}

func TestCredentialHeaders(t *testing.T) {
	if got := CredentialHeaders(GitLab); !slices.Equal(got, []string{"X-Gitlab-Token"}) {
		t.Errorf("CredentialHeaders(GitLab) = %q", got)
	}
	CredentialHeaders(GitLab)[0] = "changed"
	if got := CredentialHeaders(GitLab); got[0] != "X-Gitlab-Token" {
		t.Errorf("CredentialHeaders shares its slice: %q", got)
	}
	for _, s := range []Scheme{GitHub, Stripe, Slack, Shopify, Standard, ""} {
		if got := CredentialHeaders(s); len(got) != 0 {
			t.Errorf("CredentialHeaders(%q) = %q, want none", s, got)
		}
	}
}

func TestCheckSecret(t *testing.T) {
	tests := []struct {
		scheme Scheme
		secret string
		want   error
	}{
		{GitHub, "x", nil},
		{GitHub, "", ErrInvalid},
		{Standard, stdDocSecret, nil},
		{Standard, "plain", nil},
		{Standard, "whsec_!!!", ErrInvalid},
		{Standard, "whsec_", ErrInvalid},
		{"", "whsec_!!!", ErrInvalid},
		{Stripe, "whsec_!!!", nil}, // Stripe uses its whsec_ secret as-is
	}
	for _, tt := range tests {
		err := CheckSecret(tt.scheme, tt.secret)
		if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
			t.Errorf("CheckSecret(%q, %q) = %v, want %v", tt.scheme, tt.secret, err, tt.want)
		}
	}
}
