package bridge

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fuzzCaller is a signed Caller over a fake session (shared by the fuzz
// targets of this file; the fake is safe for concurrent use).
func fuzzCaller(f *testing.F, signing Signing) *Caller {
	fake := &fakeSession{live: newFuzzEnv(f)}
	c, err := NewCaller(fake, CallerOptions{Common: Common{PostBodyLimit: 1 << 16}, Signing: signing})
	if err != nil {
		f.Fatal(err)
	}
	return c
}

// checkAnswer asserts what holds for every answer: a known status and a
// JSON body with an "error" or a result.
func checkAnswer(t *testing.T, code int, body string) {
	t.Helper()
	switch code {
	case 200, 400, 401, 403, 413, 503, 504:
	default:
		t.Fatalf("status %d: %s", code, body)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("answer %d not a JSON object: %q", code, body)
	}
	if _, isErr := v["error"]; code != 200 && !isErr {
		t.Fatalf("error answer without error: %s", body)
	}
}

func FuzzQuery(f *testing.F) {
	body := `{"procedure":"com.example.p"}`
	ts := "2024-01-01T00:00:00.000Z"
	f.Add(signedQuery(testKey, ts, "1", "5", body, base64.URLEncoding))
	f.Add("key=bazapp;timestamp=" + ts + ";seq=1;nonce=1;signature=AAAA")
	f.Add("a&b=&=c&seq=+1&nonce=%2B9007199254740992&timestamp=2011-10-14T16:59:51Z")
	f.Add("signature=%zz&key=%00&seq=-0")
	h := fuzzCaller(f, Signing{Key: testKey, Secret: testSecret})
	f.Fuzz(func(t *testing.T, q string) {
		w := do(h, httpReq{query: q, body: body})
		checkAnswer(t, w.Code, w.Body.String())
		_ = parseQuery(q)
	})
}

func FuzzHeaders(f *testing.F) {
	f.Add("2011-10-14T16:59:51.123Z", "application/json; charset=utf-8")
	f.Add("2011-10-14T16:59:51Z", `application/json; charset="UTF8"; a=b=c`)
	f.Add("2011-10-14T16:59:51.123456789Z", "text/plain")
	f.Add("9999-99-99T99:99:99.Z", ";;;=")
	h := fuzzCaller(f, Signing{TimestampDeltaLimit: time.Hour})
	f.Fuzz(func(t *testing.T, ts, contentType string) {
		if tm, err := parseTimestamp(ts); err == nil && tm.Location() != time.UTC {
			t.Fatalf("parseTimestamp(%q) not UTC", ts)
		}
		r := httpReq{query: "timestamp=" + strings.ReplaceAll(ts, "%", "%25"), body: `{"procedure":"com.example.p"}`,
			header: http.Header{"Content-Type": {contentType}}}
		w := do(h, r)
		checkAnswer(t, w.Code, w.Body.String())
	})
}

func FuzzBody(f *testing.F) {
	f.Add([]byte(`{"procedure":"com.example.p","args":[1,2.5,"x",null,true],"kwargs":{"a":{}},"options":{"timeout":5}}`))
	f.Add([]byte(`{"procedure":"com.example.p","args":[1e308,-0,18446744073709551616]}`))
	f.Add([]byte(`{"procedure":"a..b"}`))
	f.Add([]byte(`[{"procedure":1}]`))
	f.Add([]byte("{\"procedure\":\"\xff\"}"))
	h := fuzzCaller(f, Signing{})
	p, err := NewPublisher(&fakeSession{live: newFuzzEnv(f)}, PublisherOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		w := do(h, httpReq{body: string(body)})
		checkAnswer(t, w.Code, w.Body.String())
		w = do(p, httpReq{body: string(body)})
		checkAnswer(t, w.Code, w.Body.String())
	})
}
