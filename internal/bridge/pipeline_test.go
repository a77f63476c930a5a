package bridge

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

const (
	testKey    = "bazapp"
	testSecret = "foobar"
)

// signedQuery is the query of a request signed like Crossbar's clients do.
func signedQuery(key, ts, seq, nonce, body string, enc *base64.Encoding) string {
	sig := enc.EncodeToString(Sign(testSecret, key, ts, seq, nonce, []byte(body)))
	v := url.Values{"key": {key}, "timestamp": {ts}, "seq": {seq}, "nonce": {nonce}, "signature": {sig}}
	return v.Encode()
}

func nowStamp() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

func deny(text string) string { return fmt.Sprintf(`{"error":%q,"args":[],"kwargs":{}}`, text) }

func ct(v ...string) http.Header { return http.Header{"Content-Type": v} }

const okBody = `{"procedure":"com.example.p","args":[1]}`
const okAnswer = `{"args":[1]}`

// TestPipeline has one row per rule of the shared pipeline, through the
// Caller with a fake session that echoes the call's arguments.
func TestPipeline(t *testing.T) {
	fake := newFake(t)
	signing := Signing{Key: testKey, Secret: testSecret}
	ts := nowStamp()
	old := time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000Z")
	tests := []struct {
		name   string
		opts   CallerOptions
		req    httpReq
		status int
		body   string
	}{
		{"post", CallerOptions{}, httpReq{body: okBody}, 200, okAnswer},
		{"put", CallerOptions{}, httpReq{method: "PUT", body: okBody}, 200, okAnswer},
		{"get", CallerOptions{}, httpReq{method: "GET"}, 405, deny("Method not accepted by the REST bridge. (GET not allowed, only POST, PUT)")},
		{"head", CallerOptions{}, httpReq{method: "HEAD"}, 405, deny("Method not accepted by the REST bridge. (HEAD not allowed, only POST, PUT)")},
		{"lower case post", CallerOptions{}, httpReq{method: "post", body: okBody}, 405, deny("Method not accepted by the REST bridge. (post not allowed, only POST, PUT)")},
		{"options", CallerOptions{}, httpReq{method: "OPTIONS"}, 200, ""},

		{"length over limit", CallerOptions{Common: Common{PostBodyLimit: 10}}, httpReq{body: okBody}, 413, deny("Request too long. (40 is longer than accepted 10)")},
		{"chunked over limit", CallerOptions{Common: Common{PostBodyLimit: 10}}, httpReq{body: okBody, chunked: true}, 413, deny("Request too long. (longer than accepted 10)")},
		{"at limit", CallerOptions{Common: Common{PostBodyLimit: int64(len(okBody))}}, httpReq{body: okBody, chunked: true}, 200, okAnswer},
		{"default limit", CallerOptions{}, httpReq{body: okBody + strings.Repeat(" ", DefaultPostBodyLimit)}, 413, deny(fmt.Sprintf("Request too long. (%d is longer than accepted %d)", len(okBody)+DefaultPostBodyLimit, DefaultPostBodyLimit))},
		{"unlimited", CallerOptions{Common: Common{PostBodyLimit: -1}}, httpReq{body: okBody + strings.Repeat(" ", DefaultPostBodyLimit)}, 200, okAnswer},

		{"json", CallerOptions{}, httpReq{body: okBody, header: ct("application/json")}, 200, okAnswer},
		{"json upper case charset", CallerOptions{}, httpReq{body: okBody, header: ct("Application/JSON; charset=UTF-8")}, 200, okAnswer},
		{"json quoted charset", CallerOptions{}, httpReq{body: okBody, header: ct(`application/json; charset="utf-8"`)}, 200, okAnswer},
		{"json utf8", CallerOptions{}, httpReq{body: okBody, header: ct("application/json;charset=utf8")}, 200, okAnswer},
		{"json other parameter", CallerOptions{}, httpReq{body: okBody, header: ct("application/json; foo; a=b")}, 200, okAnswer},
		{"second content type ignored", CallerOptions{}, httpReq{body: okBody, header: ct("application/json", "text/plain")}, 200, okAnswer},
		{"text plain", CallerOptions{}, httpReq{body: okBody, header: ct("text/plain")}, 400, deny("Non-accepted content type. (must be 'application/json', not 'text/plain')")},
		{"empty content type", CallerOptions{}, httpReq{body: okBody, header: ct("")}, 400, deny("Non-accepted content type. (must be 'application/json', not '')")},
		{"latin1", CallerOptions{}, httpReq{body: okBody, header: ct("application/json; charset=iso-8859-1")}, 400, deny(textEncoding)},
		{"repeated charset", CallerOptions{}, httpReq{body: okBody, header: ct("application/json; charset=utf-8; charset=utf-8")}, 400, deny(textEncoding)},
		{"two equals", CallerOptions{}, httpReq{body: okBody, header: ct("application/json; a=b=c")}, 400, deny(textEncoding)},

		{"bad utf-8", CallerOptions{}, httpReq{body: "{\"procedure\":\"com.example.\xff\"}"}, 400, deny(textNotUTF8)},
		{"invalid json", CallerOptions{}, httpReq{body: "{procedure"}, 400, deny(textInvalidJSON)},
		{"empty body", CallerOptions{}, httpReq{body: ""}, 400, deny(textInvalidJSON)},
		{"trailing data", CallerOptions{}, httpReq{body: okBody + "{}"}, 400, deny(textInvalidJSON)},
		{"trailing blanks", CallerOptions{}, httpReq{body: okBody + " \n"}, 200, okAnswer},
		{"array", CallerOptions{}, httpReq{body: "[1]"}, 400, deny(textNotDict)},
		{"null", CallerOptions{}, httpReq{body: "null"}, 400, deny(textNotDict)},
		{"too deep", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","args":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + "}"}, 400, deny(textInvalidJSON)},
		{"deep array", CallerOptions{}, httpReq{body: strings.Repeat("[", 1001) + strings.Repeat("]", 1001)}, 400, deny(textNotDict)},
		{"nul string stays a string", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","args":["\u0000AAEC/w=="]}`}, 200, `{"args":["\u0000AAEC/w=="]}`},
		{"duplicate key", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","args":[1],"args":[2]}`}, 200, `{"args":[2]}`},
		{"kwargs in order", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","kwargs":{"b":1.0,"a":"<\u2028>"}}`}, 200, `{"kwargs":{"b":1,"a":"<\u2028>"}}`},
		{"huge number", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","args":[1e999]}`}, 400, deny(textInvalidJSON)},
		{"missing procedure", CallerOptions{}, httpReq{body: `{"args":[]}`}, 400, deny("Request body was valid JSON, but not well formed (missing key 'procedure').")},
		{"procedure not a string", CallerOptions{}, httpReq{body: `{"procedure":1}`}, 400, deny("Request body was valid JSON, but not well formed ('procedure' must be a string).")},
		{"invalid procedure", CallerOptions{}, httpReq{body: `{"procedure":"a..b"}`}, 400, deny("Request body was valid JSON, but not well formed (invalid URI 'a..b' for 'procedure').")},
		{"args a string", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","args":"ab"}`}, 400, deny("Request body was valid JSON, but not well formed ('args' must be a list).")},
		{"kwargs a list", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","kwargs":[1]}`}, 400, deny("Request body was valid JSON, but not well formed ('kwargs' must be an object).")},
		{"args null", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","args":null}`}, 200, `{"args":[null]}`},
		{"options a list", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","options":[]}`}, 400, deny("Request body was valid JSON, but not well formed ('options' must be an object).")},
		{"timeout a string", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","options":{"timeout":"1"}}`}, 400, deny("Request body was valid JSON, but not well formed ('options.timeout' must be a number of milliseconds >= 0).")},
		{"negative timeout", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","options":{"timeout":-1}}`}, 400, deny("Request body was valid JSON, but not well formed ('options.timeout' must be a number of milliseconds >= 0).")},
		{"disclose_me not bool", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","options":{"disclose_me":1}}`}, 400, deny("Request body was valid JSON, but not well formed ('options.disclose_me' must be a boolean).")},
		{"kwarg named options", CallerOptions{}, httpReq{body: `{"procedure":"com.example.p","kwargs":{"options":1,"procedure":2}}`}, 200, `{"kwargs":{"options":1,"procedure":2}}`},

		{"unsigned with params", CallerOptions{}, httpReq{query: "timestamp=" + ts + "&seq=1&nonce=5", body: okBody}, 200, okAnswer},
		{"unsigned bad timestamp", CallerOptions{}, httpReq{query: "timestamp=yesterday", body: okBody}, 400, deny("REST bridge signature was invalid (invalid timestamp 'yesterday' (must be UTC/ISO-8601, e.g. '2011-10-14T16:59:51.123Z')).")},
		{"unsigned bad seq", CallerOptions{}, httpReq{query: "seq=x1", body: okBody}, 400, deny("REST bridge signature was invalid (invalid sequence number 'x1' (must be an integer)).")},
		{"unsigned blank seq", CallerOptions{}, httpReq{query: "seq=", body: okBody}, 400, deny("REST bridge signature was invalid (invalid sequence number '' (must be an integer)).")},
		{"unsigned bad nonce", CallerOptions{}, httpReq{query: "nonce=9007199254740993", body: okBody}, 400, deny("REST bridge signature was invalid (invalid nonce '9007199254740993' (must be an integer from 0 to 2^53)).")},
		{"semicolon separator", CallerOptions{}, httpReq{query: "seq=1;nonce=x", body: okBody}, 400, deny("REST bridge signature was invalid (invalid nonce 'x' (must be an integer from 0 to 2^53)).")},
		{"first value wins", CallerOptions{}, httpReq{query: "seq=1&seq=x", body: okBody}, 200, okAnswer},
		{"first value wins bad", CallerOptions{}, httpReq{query: "seq=x;seq=1", body: okBody}, 400, deny("REST bridge signature was invalid (invalid sequence number 'x' (must be an integer)).")},
		{"expired", CallerOptions{Signing: Signing{TimestampDeltaLimit: time.Minute}}, httpReq{query: "timestamp=" + old, body: okBody}, 400, deny(textExpired)},
		{"fresh", CallerOptions{Signing: Signing{TimestampDeltaLimit: time.Minute}}, httpReq{query: "timestamp=" + ts, body: okBody}, 200, okAnswer},
		{"delta needs timestamp", CallerOptions{Signing: Signing{TimestampDeltaLimit: time.Minute}}, httpReq{body: okBody}, 400, deny("REST bridge signature was invalid (missing mandatory field - 'timestamp' field missing, required by the timestamp delta limit).")},

		{"signed", CallerOptions{Signing: signing}, httpReq{query: signedQuery(testKey, ts, "1", "100", okBody, base64.URLEncoding), body: okBody}, 200, okAnswer},
		{"signed standard alphabet", CallerOptions{Signing: signing}, httpReq{query: signedQuery(testKey, ts, "1", "101", okBody, base64.StdEncoding), body: okBody}, 200, okAnswer},
		{"signed unpadded", CallerOptions{Signing: signing}, httpReq{query: signedQuery(testKey, ts, "1", "102", okBody, base64.RawURLEncoding), body: okBody}, 200, okAnswer},
		{"signed raw standard", CallerOptions{Signing: signing}, httpReq{query: signedQuery(testKey, ts, "1", "103", okBody, base64.RawStdEncoding), body: okBody}, 200, okAnswer},
		{"unknown key", CallerOptions{Signing: signing}, httpReq{query: signedQuery("other", ts, "1", "104", okBody, base64.URLEncoding), body: okBody}, 401, deny(textBadKey)},
		{"bad mac", CallerOptions{Signing: signing}, httpReq{query: signedQuery(testKey, ts, "1", "105", okBody+" ", base64.URLEncoding), body: okBody}, 401, deny(textBadSignature)},
		{"signature not base64", CallerOptions{Signing: signing}, httpReq{query: "key=bazapp&timestamp=" + ts + "&seq=1&nonce=1&signature=!!", body: okBody}, 400, deny("REST bridge signature was invalid (signature is not Base64).")},
		{"missing key", CallerOptions{Signing: signing}, httpReq{query: "timestamp=" + ts + "&seq=1&nonce=1&signature=AA", body: okBody}, 400, deny("REST bridge signature was invalid (missing mandatory field - 'key' field missing).")},
		{"missing timestamp", CallerOptions{Signing: signing}, httpReq{query: "key=bazapp&seq=1&nonce=1&signature=AA", body: okBody}, 400, deny("REST bridge signature was invalid (missing mandatory field - signed request required, but mandatory 'timestamp' field missing).")},
		{"missing seq", CallerOptions{Signing: signing}, httpReq{query: "key=bazapp&timestamp=" + ts + "&nonce=1&signature=AA", body: okBody}, 400, deny("REST bridge signature was invalid (missing mandatory field - 'seq' field missing).")},
		{"missing nonce", CallerOptions{Signing: signing}, httpReq{query: "key=bazapp&timestamp=" + ts + "&seq=1&signature=AA", body: okBody}, 400, deny("REST bridge signature was invalid (missing mandatory field - 'nonce' field missing).")},
		{"missing signature", CallerOptions{Signing: signing}, httpReq{query: "key=bazapp&timestamp=" + ts + "&seq=1&nonce=1", body: okBody}, 400, deny("REST bridge signature was invalid (missing mandatory field - 'signature' field missing).")},
		{"unsigned request to signed service", CallerOptions{Signing: signing}, httpReq{body: okBody}, 400, deny("REST bridge signature was invalid (missing mandatory field - 'key' field missing).")},

		{"ip single", CallerOptions{Common: Common{RequireIP: MustParseIPRules("192.0.2.1")}}, httpReq{body: okBody}, 200, okAnswer},
		{"ip cidr", CallerOptions{Common: Common{RequireIP: MustParseIPRules("10.0.0.0/8", "192.0.2.0/24")}}, httpReq{body: okBody}, 200, okAnswer},
		{"ip netmask", CallerOptions{Common: Common{RequireIP: MustParseIPRules("192.0.2.77/255.255.255.0")}}, httpReq{body: okBody}, 200, okAnswer},
		{"ip mapped peer", CallerOptions{Common: Common{RequireIP: MustParseIPRules("192.0.2.0/24")}}, httpReq{body: okBody, remote: "[::ffff:192.0.2.9]:80"}, 200, okAnswer},
		{"ip v6", CallerOptions{Common: Common{RequireIP: MustParseIPRules("2001:db8::/32")}}, httpReq{body: okBody, remote: "[2001:db8::1]:80"}, 200, okAnswer},
		{"ip refused", CallerOptions{Common: Common{RequireIP: MustParseIPRules("10.0.0.0/8")}}, httpReq{body: okBody}, 403, deny(textDeniedIP)},
		{"ip forwarded ignored", CallerOptions{Common: Common{RequireIP: MustParseIPRules("10.0.0.0/8")}}, httpReq{body: okBody, header: http.Header{"X-Forwarded-For": {"10.0.0.1"}}}, 403, deny(textDeniedIP)},
		{"ip unix peer", CallerOptions{Common: Common{RequireIP: MustParseIPRules("10.0.0.0/8")}}, httpReq{body: okBody, remote: "@"}, 403, deny(textDeniedIP)},
		{"tls refused", CallerOptions{Common: Common{RequireTLS: true}}, httpReq{body: okBody}, 403, deny(textDeniedTLS)},
		{"tls", CallerOptions{Common: Common{RequireTLS: true}}, httpReq{body: okBody, tls: true}, 200, okAnswer},
		{"ip before signature", CallerOptions{Common: Common{RequireIP: MustParseIPRules("10.0.0.0/8")}, Signing: signing}, httpReq{query: signedQuery("other", ts, "1", "106", okBody, base64.URLEncoding), body: okBody}, 403, deny(textDeniedIP)},
		{"tls before signature", CallerOptions{Common: Common{RequireTLS: true}, Signing: signing}, httpReq{query: signedQuery("other", ts, "1", "107", okBody, base64.URLEncoding), body: okBody}, 403, deny(textDeniedTLS)},
		{"ip before tls", CallerOptions{Common: Common{RequireIP: MustParseIPRules("10.0.0.0/8"), RequireTLS: true}}, httpReq{body: okBody}, 403, deny(textDeniedIP)},
		{"ip before method", CallerOptions{Common: Common{RequireIP: MustParseIPRules("10.0.0.0/8")}}, httpReq{method: "GET"}, 403, deny(textDeniedIP)},
		{"ip before content type", CallerOptions{Common: Common{RequireIP: MustParseIPRules("10.0.0.0/8")}}, httpReq{body: okBody, header: ct("text/plain")}, 403, deny(textDeniedIP)},
		{"ip before body limit", CallerOptions{Common: Common{RequireIP: MustParseIPRules("10.0.0.0/8"), PostBodyLimit: 10}}, httpReq{body: okBody}, 403, deny(textDeniedIP)},
		{"tls before method", CallerOptions{Common: Common{RequireTLS: true}}, httpReq{method: "GET"}, 403, deny(textDeniedTLS)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := NewCaller(fake, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			w := do(h, tt.req)
			if w.Code != tt.status || w.Body.String() != tt.body {
				t.Fatalf("got %d %s\nwant %d %s", w.Code, w.Body, tt.status, tt.body)
			}
			checkCommonHeaders(t, w.Result().Header, tt.status)
		})
	}
}

// checkCommonHeaders checks the headers every answer carries.
func checkCommonHeaders(t *testing.T, h http.Header, status int) {
	t.Helper()
	want := map[string]string{"Access-Control-Allow-Origin": "*", "Vary": "Origin", "Cache-Control": "no-store"}
	if status == 405 || status == 200 && h.Get("Content-Length") == "0" {
		want["Allow"] = allowedMethods
	}
	if status != 200 || h.Get("Content-Length") != "0" {
		want["Content-Type"] = "application/json; charset=utf-8"
	}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), v)
		}
	}
	if h.Get("Access-Control-Allow-Credentials") != "" {
		t.Error("Access-Control-Allow-Credentials sent")
	}
}

func TestCORS(t *testing.T) {
	h, err := NewCaller(newFake(t), CallerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := do(h, httpReq{method: "OPTIONS", header: http.Header{"Origin": {"https://app.example"},
		"Access-Control-Request-Headers": {"content-type, x-custom"}}})
	want := map[string]string{"Access-Control-Allow-Origin": "https://app.example",
		"Access-Control-Allow-Methods": "POST,PUT,OPTIONS", "Allow": "POST,PUT,OPTIONS",
		"Access-Control-Allow-Headers": "content-type, x-custom", "Content-Length": "0"}
	for k, v := range want {
		if got := w.Result().Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if w.Code != 200 || w.Body.Len() != 0 {
		t.Fatalf("OPTIONS = %d %q", w.Code, w.Body)
	}
	w = do(h, httpReq{body: "[]", header: http.Header{"Origin": {"null"}}})
	if got := w.Result().Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Fatalf("null origin: ACAO = %q", got)
	}
}

// TestSessionDown: with the bridge session down, every service answers
// 503 with Retry-After, exposed to pages of other origins.
func TestSessionDown(t *testing.T) {
	fake := newFake(t)
	fake.down = true
	for _, h := range handlers(t, fake) {
		w := do(h, httpReq{body: `{"procedure":"com.example.p","topic":"com.example.t"}`})
		if w.Code != 503 || w.Result().Header.Get("Retry-After") == "" {
			t.Fatalf("%T: got %d %s", h, w.Code, w.Body)
		}
		if got := w.Result().Header.Get("Access-Control-Expose-Headers"); got != "Retry-After" {
			t.Errorf("%T: Access-Control-Expose-Headers %q, want Retry-After (readable cross-origin)", h, got)
		}
	}
	if n := len(fake.recorded()); n != 0 {
		t.Fatalf("%d WAMP actions while down", n)
	}
}

// handlers returns the three services over s.
func handlers(t *testing.T, s Session) []http.Handler {
	c, err := NewCaller(s, CallerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPublisher(s, PublisherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wh, err := NewWebhook(s, WebhookOptions{Topic: "com.example.hook"})
	if err != nil {
		t.Fatal(err)
	}
	return []http.Handler{c, p, wh}
}
