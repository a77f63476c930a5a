package bridge

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
)

// crossbarClient reproduces how Crossbar's Python clients sign: crossbarhttp
// (timestamp with microseconds and Z, a seq counter from 1, a random nonce
// in 0..2^53, URL-safe Base64 with padding, a body always holding args and
// kwargs with Python's default spacing) and crossbarconnect (timestamp with
// milliseconds).
type crossbarClient struct {
	url, key, secret string
	tsLayout         string
	seq              int
}

func (c *crossbarClient) post(t *testing.T, path string, body []byte) (int, map[string]any) {
	t.Helper()
	c.seq++
	ts := time.Now().UTC().Format(c.tsLayout)
	seq := fmt.Sprint(c.seq)
	nonce := fmt.Sprint(rand.Int64N(1<<53 + 1))
	sig := base64.URLEncoding.EncodeToString(Sign(c.secret, c.key, ts, seq, nonce, body))
	q := url.Values{"timestamp": {ts}, "seq": {seq}, "key": {c.key}, "nonce": {nonce}, "signature": {sig}}
	resp, err := http.Post(c.url+path+"?"+q.Encode(), "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("answer not JSON: %v", err)
	}
	return resp.StatusCode, v
}

// pythonBody is json.dumps of a dict with Python's default separators.
func pythonBody(pairs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("{")
	for i := 0; i < len(pairs); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: %s", pairs[i], pairs[i+1])
	}
	b.WriteString("}")
	return b.Bytes()
}

func TestCrossbarClientsUnchanged(t *testing.T) {
	e := newEnv(t)
	e.register("com.example.add", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		a, b := inv.Args[0].(int64), inv.Args[1].(int64)
		return &client.Result{Args: []any{a + b + inv.Kwargs.Dict()["c"].(int64)}}, nil
	})
	events := e.subscribe("com.example.topic")
	signing := Signing{Key: "app1", Secret: "s3cr3t", TimestampDeltaLimit: 10 * time.Second}
	mux := http.NewServeMux()
	mux.Handle("/call", newCaller(t, e.bridge, CallerOptions{Signing: signing}))
	mux.Handle("/publish", newPublisher(t, e.bridge, PublisherOptions{Signing: signing}))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, layout := range []string{"2006-01-02T15:04:05.000000Z", "2006-01-02T15:04:05.000Z"} {
		c := &crossbarClient{url: srv.URL, key: "app1", secret: "s3cr3t", tsLayout: layout}
		status, v := c.post(t, "/call", pythonBody("procedure", `"com.example.add"`, "args", "[1, 2]", "kwargs", `{"c": 3}`))
		if status != 200 || fmt.Sprint(v["args"]) != "[6]" {
			t.Fatalf("%s call: %d %v", layout, status, v)
		}
		status, v = c.post(t, "/publish", pythonBody("topic", `"com.example.topic"`, "args", `["hi"]`, "kwargs", "{}"))
		if status != 200 || v["id"] == nil {
			t.Fatalf("%s publish: %d %v", layout, status, v)
		}
		if ev := waitFor(t, events, "event"); ev.Args[0] != "hi" {
			t.Fatalf("event %v", ev.Args)
		}
		// crossbarhttp maps 401 to SignatureError and reads "error".
		c.secret = "wrong"
		if status, v = c.post(t, "/call", pythonBody("procedure", `"com.example.add"`)); status != 401 || v["error"] == nil {
			t.Fatalf("%s wrong secret: %d %v", layout, status, v)
		}
	}
}
