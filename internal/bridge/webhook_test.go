package bridge

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

const hookSecret = "It's a Secret to Everybody"

func mac(h func() hash.Hash, key []byte, msg string) []byte {
	m := hmac.New(h, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// signers compute each provider's headers for a body, independently of
// package webhooksig.
var signers = map[string]func(secret, body string) http.Header{
	"github": func(secret, body string) http.Header {
		return http.Header{"X-Hub-Signature-256": {"sha256=" + hex.EncodeToString(mac(sha256.New, []byte(secret), body))}}
	},
	"github-sha1": func(secret, body string) http.Header {
		return http.Header{"X-Hub-Signature": {"sha1=" + hex.EncodeToString(mac(sha1.New, []byte(secret), body))}}
	},
	"gitlab": func(secret, body string) http.Header {
		return http.Header{"X-Gitlab-Token": {secret}}
	},
	"stripe": func(secret, body string) http.Header {
		t := strconv.FormatInt(time.Now().Unix(), 10)
		return http.Header{"Stripe-Signature": {"t=" + t + ",v1=" + hex.EncodeToString(mac(sha256.New, []byte(secret), t+"."+body))}}
	},
	"slack": func(secret, body string) http.Header {
		t := strconv.FormatInt(time.Now().Unix(), 10)
		return http.Header{"X-Slack-Request-Timestamp": {t},
			"X-Slack-Signature": {"v0=" + hex.EncodeToString(mac(sha256.New, []byte(secret), "v0:"+t+":"+body))}}
	},
	"shopify": func(secret, body string) http.Header {
		return http.Header{"X-Shopify-Hmac-Sha256": {base64.StdEncoding.EncodeToString(mac(sha256.New, []byte(secret), body))}}
	},
	"standard": func(secret, body string) http.Header {
		key, _ := base64.StdEncoding.DecodeString(secret[len("whsec_"):])
		t := strconv.FormatInt(time.Now().Unix(), 10)
		return http.Header{"Webhook-Id": {"msg_1"}, "Webhook-Timestamp": {t},
			"Webhook-Signature": {"v1," + base64.StdEncoding.EncodeToString(mac(sha256.New, key, "msg_1."+t+"."+body))}}
	},
}

func providerSecret(provider string) string {
	if provider == "standard" {
		return "whsec_" + base64.StdEncoding.EncodeToString([]byte("a standard webhooks key"))
	}
	return hookSecret
}

func wrongSecret(provider string) string {
	if provider == "standard" {
		return "whsec_" + base64.StdEncoding.EncodeToString([]byte("another key"))
	}
	return hookSecret + "x"
}

func newWebhook(t *testing.T, s Session, o WebhookOptions) *Webhook {
	t.Helper()
	h, err := NewWebhook(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestWebhookProviders sends, for each provider, a request with a wrong
// signature (401, no event), then a correct one (202, the event), with the
// scheme detected by its headers and pinned.
func TestWebhookProviders(t *testing.T) {
	e := newEnv(t)
	events := e.subscribe("com.example.hook")
	for name, sign := range signers {
		provider := name
		if name == "github-sha1" {
			provider = "github"
		}
		for _, pinned := range []string{"", provider} {
			t.Run(name+"/"+pinned, func(t *testing.T) {
				secret := providerSecret(provider)
				h := newWebhook(t, e.bridge, WebhookOptions{Topic: "com.example.hook", ProviderSecret: secret, Provider: pinned})
				body := fmt.Sprintf(`{"provider":%q}`, name)
				bad := do(h, httpReq{body: body, header: sign(wrongSecret(provider), body)})
				if bad.Code != 401 || bad.Body.String() != "NOT OK" {
					t.Fatalf("wrong signature: %d %s", bad.Code, bad.Body)
				}
				good := do(h, httpReq{body: body, header: sign(secret, body)})
				if good.Code != 202 || good.Body.String() != "OK" ||
					good.Result().Header.Get("Content-Type") != "text/plain; charset=utf-8" {
					t.Fatalf("signed: %d %s", good.Code, good.Body)
				}
				ev := waitFor(t, events, "event")
				if got, _ := ev.Args[0].(wamp.Object).Get("body"); got != body {
					t.Fatalf("event body %v, want %s (an event for the wrong signature?)", got, body)
				}
			})
		}
	}
}

func TestWebhookRefusals(t *testing.T) {
	fake := newFake(t)
	secret := "s"
	tests := []struct {
		name   string
		opts   WebhookOptions
		req    httpReq
		status int
		body   string
	}{
		{"unsigned", WebhookOptions{ProviderSecret: secret}, httpReq{body: "x"}, 401, "NOT OK"},
		{"pinned other scheme", WebhookOptions{ProviderSecret: secret, Provider: "gitlab"}, httpReq{body: "x", header: signers["github"](secret, "x")}, 401, "NOT OK"},
		{"get", WebhookOptions{}, httpReq{method: "GET"}, 405, "NOT OK"},
		{"too long", WebhookOptions{Common: Common{PostBodyLimit: 2}}, httpReq{body: "xyz"}, 413, "NOT OK"},
		{"chunked too long", WebhookOptions{Common: Common{PostBodyLimit: 2}}, httpReq{body: "xyz", chunked: true}, 413, "NOT OK"},
		{"default limit above callers'", WebhookOptions{}, httpReq{body: strings.Repeat("x", 2*DefaultPostBodyLimit)}, 202, "OK"},
		{"default limit", WebhookOptions{}, httpReq{body: strings.Repeat("x", DefaultWebhookPostBodyLimit+1)}, 413, "NOT OK"},
		{"not utf-8", WebhookOptions{}, httpReq{body: "\xff"}, 400, "NOT OK"},
		{"custom texts", WebhookOptions{ErrorResponse: ptr("nope")}, httpReq{body: "\xff"}, 400, "nope"},
		{"ip", WebhookOptions{Common: Common{RequireIP: MustParseIPRules("10.0.0.0/8")}}, httpReq{body: "x"}, 403, "NOT OK"},
		{"tls", WebhookOptions{Common: Common{RequireTLS: true}}, httpReq{body: "x"}, 403, "NOT OK"},
		{"any content type", WebhookOptions{}, httpReq{body: "a=1", header: ct("application/x-www-form-urlencoded; charset=latin1")}, 202, "OK"},
		{"query ignored", WebhookOptions{}, httpReq{body: "x", query: "timestamp=bad&seq=x"}, 202, "OK"},
		{"empty success", WebhookOptions{SuccessResponse: ptr("")}, httpReq{body: "x"}, 202, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Topic = "com.example.hook"
			before := len(fake.recorded())
			w := do(newWebhook(t, fake, tt.opts), tt.req)
			if w.Code != tt.status || w.Body.String() != tt.body {
				t.Fatalf("got %d %q, want %d %q", w.Code, w.Body, tt.status, tt.body)
			}
			if published := len(fake.recorded()) > before; published != (tt.status == 202) {
				t.Fatalf("published = %v", published)
			}
		})
	}
	fake.publish = func(wamp.URI, wamp.List, wamp.Object, wamp.Dict) (wamp.ID, error) {
		return 0, wamp.Errorf(wamp.ErrNotAuthorized, "no")
	}
	if w := do(newWebhook(t, fake, WebhookOptions{Topic: "com.example.hook"}), httpReq{body: "x"}); w.Code != 500 || w.Body.String() != "NOT OK" {
		t.Fatalf("publish refused: %d %q", w.Code, w.Body)
	}
}

func ptr(s string) *string { return &s }

func TestWebhookEvent(t *testing.T) {
	fake := newFake(t)
	h := newWebhook(t, fake, WebhookOptions{Topic: "com.example.hook"})
	hdr := http.Header{"X-Github-Event": {"push"}, "Authorization": {"Bearer t"}, "Cookie": {"c=1"},
		"Proxy-Authorization": {"p"}, "X-Gitlab-Token": {"secret"}, "X-Multi": {"a", "b"}, "X-Latin": {"caf\xe9"}}
	w := do(h, httpReq{body: "hello", header: hdr})
	if w.Code != 202 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	rec := fake.recorded()[0]
	// The body first, then the headers, sorted by name.
	want := wamp.Object{{Key: "body", Value: "hello"}, {Key: "headers", Value: wamp.Object{
		{Key: "Host", Value: wamp.List{"example.com"}}, {Key: "X-Github-Event", Value: wamp.List{"push"}},
		{Key: "X-Latin", Value: wamp.List{"caf\uFFFD"}}, {Key: "X-Multi", Value: wamp.List{"a", "b"}}}}}
	if rec.uri != "com.example.hook" || len(rec.args) != 1 || rec.kwargs != nil ||
		!reflect.DeepEqual(rec.args[0], want) || rec.opts[wamp.OptAcknowledge] != true {
		t.Fatalf("published %v %v %v %v", rec.uri, rec.args, rec.kwargs, rec.opts)
	}
}

func TestWebhookOptionErrors(t *testing.T) {
	fake := newFake(t)
	tests := []struct {
		o    WebhookOptions
		want string
	}{
		{WebhookOptions{}, "bridge: topic: required"},
		{WebhookOptions{Topic: "a..b"}, `bridge: topic: invalid URI "a..b"`},
		{WebhookOptions{Topic: "t", Provider: "bitbucket", ProviderSecret: "s"}, `bridge: provider: unknown scheme "bitbucket"`},
		{WebhookOptions{Topic: "t", Provider: "github"}, "bridge: provider_secret: required when provider is set"},
	}
	for _, tt := range tests {
		if _, err := NewWebhook(fake, tt.o); err == nil || err.Error() != tt.want {
			t.Errorf("NewWebhook(%+v) = %v, want %s", tt.o, err, tt.want)
		}
	}
}
