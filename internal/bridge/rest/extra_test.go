package rest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// extraOf decodes a JSON extra the way the config package does (numbers
// as json.Number).
func extraOf(t *testing.T, doc string) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParseCalleeExtra(t *testing.T) {
	tests := []struct {
		doc, err string
	}{
		{`{"procedure": "com.example.p", "baseurl": "https://api.example.com/v1/"}`, ""},
		{`{"procedure": "com.example.p", "baseurl": "", "timeout": 2.5}`, ""},
		{`{"baseurl": "http://x"}`, "procedure: required"},
		{`{"procedure": "com.example.p"}`, "baseurl: required"},
		{`{"procedure": "bad uri", "baseurl": "http://x"}`, "procedure: invalid URI"},
		{`{"procedure": 1, "baseurl": "http://x"}`, "procedure: must be a string"},
		{`{"procedure": "p", "baseurl": "ftp://x"}`, "baseurl: must be an http or https URL"},
		{`{"procedure": "p", "baseurl": "example.com/api"}`, "baseurl: must be an http or https URL"},
		{`{"procedure": "p", "baseurl": "http://x/?a=1"}`, "baseurl: must be an http or https URL"},
		{`{"procedure": "p", "baseurl": "http://x", "timeout": 0}`, "timeout: must be > 0"},
		{`{"procedure": "p", "baseurl": "http://x", "timeout": "5"}`, "timeout: must be a number"},
		{`{"procedure": "p", "baseurl": "http://x", "timout": 5}`, "timout: unknown key"},
	}
	for _, tt := range tests {
		o, err := ParseCalleeExtra(extraOf(t, tt.doc))
		if !errMatches(err, tt.err) {
			t.Errorf("%s: err = %v, want %q", tt.doc, err, tt.err)
		}
		if err == nil {
			if _, err := NewCallee(o); err != nil {
				t.Errorf("%s: NewCallee: %v", tt.doc, err)
			}
		}
	}
	o, _ := ParseCalleeExtra(extraOf(t, `{"procedure": "p", "baseurl": "", "timeout": 2.5}`))
	if o.Timeout != 2500*time.Millisecond {
		t.Errorf("timeout = %v", o.Timeout)
	}
}

func TestParseSubscriberExtra(t *testing.T) {
	const sub = `"subscriptions": [{"topic": "com.example.t", "url": "http://127.0.0.1:1/x"}]`
	tests := []struct {
		doc, err string
	}{
		{`{` + sub + `}`, ""},
		{`{` + sub + `, "method": "PUT", "expectedcode": 201, "debug": true, "retries": 0, "queuesize": 10}`, ""},
		{`{"subscriptions": [{"topic": "com.", "url": "https://x", "match": "prefix"}, {"topic": "a..b", "url": "http://x", "match": "wildcard"}]}`, ""},
		{`{}`, "subscriptions: required"},
		{`{"subscriptions": []}`, "subscriptions: must be a non-empty array"},
		{`{"subscriptions": [1]}`, "subscriptions[0]: must be an object"},
		{`{"subscriptions": [{"topic": "a.b", "url": "http://x"}, {"topic": "a.b"}]}`, "subscriptions[1].url: required"},
		{`{"subscriptions": [{"url": "http://x"}]}`, "subscriptions[0].topic: required"},
		{`{"subscriptions": [{"topic": "a.b", "url": "x.example/y"}]}`, "subscriptions[0].url: must be an http or https URL"},
		{`{"subscriptions": [{"topic": "a..b", "url": "http://x"}]}`, "subscriptions[0].topic: invalid URI"},
		{`{"subscriptions": [{"topic": "a.b", "url": "http://x", "match": "regex"}]}`, "subscriptions[0].match: must be exact, prefix or wildcard"},
		{`{"subscriptions": [{"topic": "a.b", "url": "http://x", "extra": 1}]}`, "subscriptions[0].extra: unknown key"},
		{`{` + sub + `, "expectedcode": "200"}`, "expectedcode: must be an integer"},
		{`{` + sub + `, "expectedcode": 2000}`, "expectedcode: must be in 100..599"},
		{`{` + sub + `, "method": "GE T"}`, "method: must be an HTTP method"},
		{`{` + sub + `, "debug": "yes"}`, "debug: must be a boolean"},
		{`{` + sub + `, "queuesize": 0}`, "queuesize: must be in 1..1000000"},
	}
	for _, tt := range tests {
		o, err := ParseSubscriberExtra(extraOf(t, tt.doc))
		if !errMatches(err, tt.err) {
			t.Errorf("%s: err = %v, want %q", tt.doc, err, tt.err)
		}
		if err == nil {
			if _, err := NewSubscriber(o); err != nil {
				t.Errorf("%s: NewSubscriber: %v", tt.doc, err)
			}
		}
	}
	o, _ := ParseSubscriberExtra(extraOf(t, `{`+sub+`, "retries": 0}`))
	if o.Retries != NoRetries {
		t.Errorf("retries 0 gave %d, want NoRetries", o.Retries)
	}
}

func errMatches(err error, want string) bool {
	if want == "" {
		return err == nil
	}
	return err != nil && strings.HasPrefix(err.Error(), want)
}
