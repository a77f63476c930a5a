package e2e_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// crossbarHTTP sends requests as the Python client crossbarhttp does
// (Crossbar's own HTTP bridge client): the body is Python's json.dumps of
// {"procedure" or "topic", "args", "kwargs"} (", " and ": " separators);
// the query has timestamp (UTC, microseconds, "Z"), seq (a counter from
// 1), nonce (random in 0..2^53), key and signature, the URL-safe Base64
// (with padding) of HMAC-SHA256(secret, key + timestamp + seq + nonce +
// body), urlencoded. tsLayout and encode vary it as other clients do.
type crossbarHTTP struct {
	url, key, secret string
	tsLayout         string                  // "" means microseconds
	encode           func(mac []byte) string // nil means URL-safe, padded

	mu  sync.Mutex
	seq int
}

const microsLayout = "2006-01-02T15:04:05.000000Z"

// signedURL returns c.url with the signing query for body.
func (c *crossbarHTTP) signedURL(body []byte, now time.Time) string {
	c.mu.Lock()
	c.seq++
	seq := strconv.Itoa(c.seq)
	c.mu.Unlock()
	layout, encode := c.tsLayout, c.encode
	if layout == "" {
		layout = microsLayout
	}
	if encode == nil {
		encode = base64.URLEncoding.EncodeToString
	}
	ts := now.UTC().Format(layout)
	nonce := strconv.FormatInt(rand.Int64N(1<<53), 10)
	sig := encode(mac([]byte(c.secret), []byte(c.key+ts+seq+nonce), body))
	q := url.Values{"timestamp": {ts}, "seq": {seq}, "nonce": {nonce}, "key": {c.key}, "signature": {sig}}
	return c.url + "?" + q.Encode()
}

// post sends body signed, as crossbarhttp's urllib request (which sets
// Content-Type application/json).
func (c *crossbarHTTP) post(t *testing.T, body string) response {
	t.Helper()
	req := curlRequest(t, http.MethodPost, c.signedURL([]byte(body), time.Now()), []byte(body),
		"Content-Type", "application/json")
	req.Header.Set("User-Agent", "Python-urllib/3.11")
	return do(t, req)
}

// call is crossbarhttp's call(): the first result, or an error for an
// answer with an "error" member.
func (c *crossbarHTTP) call(t *testing.T, procedure string, args ...any) (any, error) {
	t.Helper()
	r := c.post(t, pyDumps([]string{"procedure", "args", "kwargs"}, procedure, args, map[string]any{}))
	if r.status != 200 {
		return nil, fmt.Errorf("status %d: %s", r.status, r.body)
	}
	var res struct {
		Error *string `json:"error"`
		Args  []any   `json:"args"`
	}
	if err := json.Unmarshal(r.body, &res); err != nil {
		return nil, err
	}
	if res.Error != nil {
		return nil, fmt.Errorf("call error %s", *res.Error)
	}
	if len(res.Args) == 0 {
		return nil, nil
	}
	return res.Args[0], nil
}

// pyDumps is Python's json.dumps of an object with keys in this order
// (ASCII values only).
func pyDumps(keys []string, values ...any) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q: %s", k, pyValue(values[i]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func pyValue(v any) string {
	switch v := v.(type) {
	case []any:
		items := make([]string, len(v))
		for i, e := range v {
			items[i] = pyValue(e)
		}
		return "[" + strings.Join(items, ", ") + "]"
	case map[string]any:
		if len(v) == 0 {
			return "{}"
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// testSigned proves that clients written against Crossbar's signed
// caller and publisher work unchanged, and that a replayed or badly signed
// request is refused.
func testSigned(t *testing.T, env *bridgeEnv) {
	variants := []struct {
		name     string
		tsLayout string
		encode   func([]byte) string
	}{
		{"crossbarhttp", "", nil},
		{"ruby-millis", "2006-01-02T15:04:05.000Z", nil},
		{"php-std-base64", "", base64.StdEncoding.EncodeToString},
		{"unpadded", "", base64.RawURLEncoding.EncodeToString},
	}
	for _, v := range variants {
		t.Run("call/"+v.name, func(t *testing.T) {
			t.Parallel()
			c := &crossbarHTTP{url: env.base + "/call-signed", key: signKey, secret: signSecret,
				tsLayout: v.tsLayout, encode: v.encode}
			for _, p := range peerPrefixes { // two requests: seq 1 and 2
				got, err := c.call(t, p+".echo", 2, "three")
				if err != nil || got != 2.0 {
					t.Errorf("%s.echo(2, \"three\"): %v, %v; want 2", p, got, err)
				}
			}
		})
	}
	t.Run("publish/crossbarhttp", func(t *testing.T) {
		events := env.gp.subscribe(t, "com.e2e.go.signed")
		c := &crossbarHTTP{url: env.base + "/publish-signed", key: signKey, secret: signSecret}
		body := pyDumps([]string{"topic", "args", "kwargs"}, "com.e2e.go.signed", []any{"hello"}, map[string]any{})
		id := publicationID(t, c.post(t, body))
		if ev := nextEvent(t, events); uint64(ev.Publication) != id || len(ev.Args) != 1 || ev.Args[0] != "hello" {
			t.Errorf("event %d %v, want %d [hello]", ev.Publication, ev.Args, id)
		}
	})
	t.Run("refusals", func(t *testing.T) { testSignedRefusals(t, env) })
}

// testSignedRefusals: a replay (same query and body) 401; a wrong secret
// 401; a stale timestamp and an unsigned request 400.
func testSignedRefusals(t *testing.T, env *bridgeEnv) {
	body := `{"procedure": "com.e2e.go.one"}`
	good := &crossbarHTTP{url: env.base + "/call-signed", key: signKey, secret: signSecret}
	t.Run("replay", func(t *testing.T) {
		t.Parallel()
		u := good.signedURL([]byte(body), time.Now())
		post := func() response {
			return do(t, curlRequest(t, http.MethodPost, u, []byte(body), "Content-Type", "application/json"))
		}
		checkAnswer(t, post(), 200, `{"args": [42]}`)
		checkError(t, post(), 401, "REST bridge signature was invalid (nonce already used).")
	})
	cases := []struct {
		name   string
		url    string
		status int
		text   string
	}{
		{"wrong-secret", (&crossbarHTTP{url: env.base + "/call-signed", key: signKey, secret: "nope"}).signedURL([]byte(body), time.Now()),
			401, "REST bridge signature secret not valid."},
		{"wrong-key", (&crossbarHTTP{url: env.base + "/call-signed", key: "other", secret: signSecret}).signedURL([]byte(body), time.Now()),
			401, "REST bridge signature key not valid."},
		{"stale", good.signedURL([]byte(body), time.Now().Add(-time.Hour)), 400, "Request expired, too old timestamp."},
		{"unsigned", env.base + "/call-signed", 400, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := do(t, curlRequest(t, http.MethodPost, tc.url, []byte(body), "Content-Type", "application/json"))
			if tc.text == "" {
				if r.status != tc.status || !strings.Contains(errorText(t, r), "missing") {
					t.Errorf("status %d body %s, want %d with a missing field", r.status, r.body, tc.status)
				}
				return
			}
			checkError(t, r, tc.status, tc.text)
		})
	}
}
