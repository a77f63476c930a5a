package e2e_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// hookSigner signs a webhook body as a provider's sender does, with secret
// (the configured form: Standard Webhooks' "whsec_..." included).
type hookSigner func(secret string, body []byte, now time.Time) http.Header

var hookSigners = map[string]hookSigner{
	"github": func(secret string, body []byte, _ time.Time) http.Header {
		return header("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac([]byte(secret), body)),
			"X-GitHub-Event", "push")
	},
	"gitlab": func(secret string, _ []byte, _ time.Time) http.Header {
		return header("X-Gitlab-Token", secret, "X-Gitlab-Event", "Push Hook")
	},
	"stripe": func(secret string, body []byte, now time.Time) http.Header {
		ts := strconv.FormatInt(now.Unix(), 10)
		sig := hex.EncodeToString(mac([]byte(secret), []byte(ts+"."), body))
		return header("Stripe-Signature", "t="+ts+",v1="+sig)
	},
	"slack": func(secret string, body []byte, now time.Time) http.Header {
		ts := strconv.FormatInt(now.Unix(), 10)
		sig := "v0=" + hex.EncodeToString(mac([]byte(secret), []byte("v0:"+ts+":"), body))
		return header("X-Slack-Request-Timestamp", ts, "X-Slack-Signature", sig)
	},
	"shopify": func(secret string, body []byte, _ time.Time) http.Header {
		return header("X-Shopify-Hmac-Sha256", base64.StdEncoding.EncodeToString(mac([]byte(secret), body)))
	},
	"standard": func(secret string, body []byte, now time.Time) http.Header {
		key, err := base64.StdEncoding.DecodeString(secret[len("whsec_"):])
		if err != nil {
			panic(err)
		}
		id, ts := "msg_e2e"+strconv.FormatInt(now.UnixNano(), 10), strconv.FormatInt(now.Unix(), 10)
		sig := base64.StdEncoding.EncodeToString(mac(key, []byte(id+"."+ts+"."), body))
		return header("Webhook-Id", id, "Webhook-Timestamp", ts, "Webhook-Signature", "v1,"+sig)
	},
}

func mac(key []byte, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

func header(pairs ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(pairs); i += 2 {
		h.Add(pairs[i], pairs[i+1])
	}
	return h
}

// testWebhook sends each provider's webhook path a request signed with a
// wrong secret, an unsigned one, then a correctly signed one. The first two
// get 401 "NOT OK"; the last 202 "OK" and one event. Publication is
// acknowledged before the answer, so had a refused request been
// published, its event would have arrived first.
func testWebhook(t *testing.T, env *bridgeEnv) {
	for _, p := range providers {
		events := env.gp.subscribe(t, "com.e2e.hook."+p)
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			url := env.base + "/hook-" + p
			secret, wrong := hookSecret, "wrong-secret"
			if p == "standard" {
				secret, wrong = standardSecret, "whsec_"+base64.StdEncoding.EncodeToString([]byte("wrong key"))
			}
			sendHook(t, url, `{"try": "wrong"}`, hookSigners[p](wrong, []byte(`{"try": "wrong"}`), time.Now()), 401, "NOT OK")
			sendHook(t, url, `{"try": "unsigned"}`, http.Header{}, 401, "NOT OK")
			body := `{"try": "right", "provider": "` + p + `"}`
			signed := hookSigners[p](secret, []byte(body), time.Now())
			sendHook(t, url, body, signed, 202, "OK")
			checkHookEvent(t, nextEvent(t, events).Args, body, p)
		})
	}
}

func sendHook(t *testing.T, url, body string, h http.Header, status int, text string) {
	t.Helper()
	req := curlRequest(t, http.MethodPost, url, []byte(body), "Content-Type", "application/json")
	for k, v := range h {
		req.Header[k] = v
	}
	r := do(t, req)
	if r.status != status || string(r.body) != text {
		t.Errorf("webhook: status %d body %q, want %d %q", r.status, r.body, status, text)
	}
}

// checkHookEvent checks the event's one argument {"body", "headers"}: the
// body as sent, the request's headers without GitLab's token.
func checkHookEvent(t *testing.T, args []any, body, provider string) {
	t.Helper()
	if len(args) != 1 {
		t.Fatalf("webhook event args %v, want one", args)
	}
	ev, _ := viaJSON(t, args[0]).(map[string]any)
	if ev["body"] != body {
		t.Errorf("webhook event body %q, want %q (a refused request published?)", ev["body"], body)
	}
	headers, _ := ev["headers"].(map[string]any)
	if ua, _ := headers["User-Agent"].([]any); len(ua) != 1 || ua[0] != curlUserAgent {
		t.Errorf("webhook event headers %v: User-Agent, want [%q]", headers, curlUserAgent)
	}
	if _, ok := headers["X-Gitlab-Token"]; ok {
		t.Errorf("webhook event headers carry the GitLab token: %v", headers)
	}
	if provider == "github" && headers["X-Hub-Signature-256"] == nil {
		t.Errorf("webhook event headers %v lack X-Hub-Signature-256", headers)
	}
}
