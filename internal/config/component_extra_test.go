package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// calleeDoc is a router with a RESTCallee whose "extra" is extra.
func calleeDoc(extra string) string {
	return top(router(`"components": [{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1", "extra": ` + extra + `}]`))
}

// forwarderDoc is a router with a MessageForwarder whose "extra" is extra.
func forwarderDoc(extra string) string {
	return top(router(`"components": [{"type": "class", "classname": "router.adapter.rest.MessageForwarder", "realm": "realm1", "extra": ` + extra + `}]`))
}

// withSub is a forwarder extra with one valid subscription and members.
func withSub(members string) string {
	return forwarderDoc(`{"subscriptions": [{"topic": "com.example.t", "url": "http://127.0.0.1:1/x"}], ` + members + `}`)
}

const x0 = c0 + ".extra"

// extraTests are one "extra" per rule, with the path and a substring of
// the one error it must give.
var extraTests = []struct {
	name, doc, path, msg string
}{
	// RESTCallee.
	{"callee extra not an object", calleeDoc(`[]`), x0, "must be an object, not an array"},
	{"procedure missing", calleeDoc(`{"baseurl": "http://x"}`), x0 + ".procedure", "required"},
	{"baseurl missing", calleeDoc(`{"procedure": "com.example.p"}`), x0 + ".baseurl", "required"},
	{"procedure invalid", calleeDoc(`{"procedure": "bad uri", "baseurl": "http://x"}`), x0 + ".procedure", `invalid URI "bad uri"`},
	{"procedure empty", calleeDoc(`{"procedure": "", "baseurl": "http://x"}`), x0 + ".procedure", `invalid URI ""`},
	{"procedure number", calleeDoc(`{"procedure": 1, "baseurl": "http://x"}`), x0 + ".procedure", "must be a string, not a number"},
	{"baseurl ftp", calleeDoc(`{"procedure": "p", "baseurl": "ftp://x"}`), x0 + ".baseurl", `must be an http or https URL without a query or fragment, not "ftp://x"`},
	{"baseurl relative", calleeDoc(`{"procedure": "p", "baseurl": "example.com/api"}`), x0 + ".baseurl", "must be an http or https URL"},
	{"baseurl query", calleeDoc(`{"procedure": "p", "baseurl": "http://x/?a=1"}`), x0 + ".baseurl", "must be an http or https URL"},
	{"baseurl empty query", calleeDoc(`{"procedure": "p", "baseurl": "http://x/?"}`), x0 + ".baseurl", "must be an http or https URL"},
	{"baseurl fragment", calleeDoc(`{"procedure": "p", "baseurl": "http://x/#f"}`), x0 + ".baseurl", "must be an http or https URL"},
	{"baseurl backslash", calleeDoc(`{"procedure": "p", "baseurl": "http://x/a\\b"}`), x0 + ".baseurl", "must be an http or https URL"},
	{"baseurl no host", calleeDoc(`{"procedure": "p", "baseurl": "http:///a"}`), x0 + ".baseurl", "must be an http or https URL"},
	{"timeout 0", calleeDoc(`{"procedure": "p", "baseurl": "", "timeout": 0}`), x0 + ".timeout", "must be > 0 seconds"},
	{"timeout negative", calleeDoc(`{"procedure": "p", "baseurl": "", "timeout": -1}`), x0 + ".timeout", "must be > 0 seconds"},
	{"timeout tiny", calleeDoc(`{"procedure": "p", "baseurl": "", "timeout": 1e-10}`), x0 + ".timeout", "must be at least 0.001 seconds"},
	{"timeout too long", calleeDoc(`{"procedure": "p", "baseurl": "", "timeout": 86401}`), x0 + ".timeout", "must be at most 86400 seconds (a day), not 86401"},
	{"timeout huge", calleeDoc(`{"procedure": "p", "baseurl": "", "timeout": 1e300}`), x0 + ".timeout", "must be at most 86400 seconds (a day), not 1e+300"},
	{"timeout string", calleeDoc(`{"procedure": "p", "baseurl": "", "timeout": "5"}`), x0 + ".timeout", "must be a number, not a string"},
	{"timeout env not a number", calleeDoc(`{"procedure": "p", "baseurl": "", "timeout": "${NOT_A_NUMBER}"}`), x0 + ".timeout", `must be a number, not "eighty"`},
	{"callee unknown key close", calleeDoc(`{"procedure": "p", "baseurl": "", "timout": 5}`), x0 + ".timout", `unknown key (did you mean "timeout"?)`},
	{"callee unknown key far", calleeDoc(`{"procedure": "p", "baseurl": "", "headers": {}}`), x0 + ".headers", "unknown key (known: baseurl, procedure, timeout)"},
	{"callee env missing", calleeDoc(`{"procedure": "p", "baseurl": "${NO_BASEURL}"}`), x0 + ".baseurl", "environment variable NO_BASEURL is not set"},

	// MessageForwarder.
	{"forwarder no extra", top(router(`"components": [{"type": "class", "classname": "router.adapter.rest.MessageForwarder", "realm": "realm1"}]`)), x0 + ".subscriptions", "required"},
	{"forwarder null extra", forwarderDoc(`null`), x0 + ".subscriptions", "required"},
	{"subscriptions missing", forwarderDoc(`{}`), x0 + ".subscriptions", "required"},
	{"subscriptions empty", forwarderDoc(`{"subscriptions": []}`), x0 + ".subscriptions", "must not be empty"},
	{"subscriptions object", forwarderDoc(`{"subscriptions": {}}`), x0 + ".subscriptions", "must be an array, not an object"},
	{"subscription not an object", forwarderDoc(`{"subscriptions": [1]}`), x0 + ".subscriptions[0]", "must be an object, not a number"},
	{"url missing", forwarderDoc(`{"subscriptions": [{"topic": "a.b", "url": "http://x"}, {"topic": "a.b"}]}`), x0 + ".subscriptions[1].url", "required"},
	{"topic missing", forwarderDoc(`{"subscriptions": [{"url": "http://x"}]}`), x0 + ".subscriptions[0].topic", "required"},
	{"url relative", forwarderDoc(`{"subscriptions": [{"topic": "a.b", "url": "x.example/y"}]}`), x0 + ".subscriptions[0].url", `must be an http or https URL, not "x.example/y"`},
	{"url empty", forwarderDoc(`{"subscriptions": [{"topic": "a.b", "url": ""}]}`), x0 + ".subscriptions[0].url", `must be an http or https URL, not ""`},
	{"topic invalid", forwarderDoc(`{"subscriptions": [{"topic": "a..b", "url": "http://x"}]}`), x0 + ".subscriptions[0].topic", `invalid URI "a..b" for match exact`},
	{"topic prefix", forwarderDoc(`{"subscriptions": [{"topic": "com.", "url": "https://x", "match": "prefix"}]}`), "", ""},
	{"topic wildcard", forwarderDoc(`{"subscriptions": [{"topic": "a..b", "url": "http://x", "match": "wildcard"}]}`), "", ""},
	{"match unknown", forwarderDoc(`{"subscriptions": [{"topic": "a.b", "url": "http://x", "match": "regex"}]}`), x0 + ".subscriptions[0].match", `unknown match "regex" (want exact, prefix, wildcard)`},
	{"subscription unknown key", forwarderDoc(`{"subscriptions": [{"topic": "a.b", "url": "http://x", "extra": 1}]}`), x0 + ".subscriptions[0].extra", "unknown key (known: match, topic, url)"},
	{"expectedcode string", withSub(`"expectedcode": "200"`), x0 + ".expectedcode", "must be an integer, not a string"},
	{"expectedcode range", withSub(`"expectedcode": 2000`), x0 + ".expectedcode", "must be in 100..599, not 2000"},
	{"method invalid", withSub(`"method": "GE T"`), x0 + ".method", `must be an HTTP method, not "GE T"`},
	{"method empty", withSub(`"method": ""`), x0 + ".method", `must be an HTTP method, not ""`},
	{"method number", withSub(`"method": 1`), x0 + ".method", "must be a string, not a number"},
	{"debug string", withSub(`"debug": "yes"`), x0 + ".debug", "must be a boolean, not a string"},
	{"retries range", withSub(`"retries": 101`), x0 + ".retries", "must be in 0..100, not 101"},
	{"queuesize 0", withSub(`"queuesize": 0`), x0 + ".queuesize", "must be in 1..1000000, not 0"},
	{"forwarder unknown key", withSub(`"queusize": 3`), x0 + ".queusize", `unknown key (did you mean "queuesize"?)`},

	// A Python class: its extra is any object, handed over as it is.
	{"python class extra", top(router(`"components": [{"type": "class", "classname": "app.Backend", "realm": "realm1", "extra": {"anything": 1}}]`)), "", ""},
}

func TestExtraRules(t *testing.T) {
	for _, tt := range extraTests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, tt.doc, JSON)
			if tt.path == "" && tt.msg == "" {
				if errs != nil {
					t.Fatalf("unexpected errors:\n%v", errs)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1 at %q:\n%v", len(errs), tt.path, errs)
			}
			if errs[0].Path != tt.path || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Errorf("got %q,\nwant %s: ...%s...", errs[0].Error(), tt.path, tt.msg)
			}
		})
	}
}

// TestExtraErrorsAllAtOnce: every problem of every component's extra is
// reported, each at its path, in path order.
func TestExtraErrorsAllAtOnce(t *testing.T) {
	doc := top(router(`"components": [
		{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1",
			"extra": {"procedure": "bad uri", "timeout": 0}},
		{"type": "class", "classname": "router.adapter.rest.MessageForwarder", "realm": "realm1",
			"extra": {"method": "GE T", "queuesize": 0, "subscriptions": [
				{"topic": "a.b", "url": "http://x"},
				{"url": "http://x", "match": "regex"},
				{"topic": "a.b", "url": "ftp://x"},
				{"topic": "a..b", "url": "http://x"}]}}]`))
	const x1 = "workers[0].components[1].extra"
	want := []string{
		x0 + `.baseurl: required`,
		x0 + `.procedure: invalid URI "bad uri"`,
		x0 + `.timeout: must be > 0 seconds, not 0`,
		x1 + `.method: must be an HTTP method, not "GE T"`,
		x1 + `.queuesize: must be in 1..1000000, not 0`,
		x1 + `.subscriptions[1].match: unknown match "regex" (want exact, prefix, wildcard)`,
		x1 + `.subscriptions[1].topic: required`,
		x1 + `.subscriptions[2].url: must be an http or https URL, not "ftp://x"`,
		x1 + `.subscriptions[3].topic: invalid URI "a..b" for match exact`,
	}
	_, _, errs := parseTest(t, doc, JSON)
	got := make([]string, len(errs))
	for i, e := range errs {
		got[i] = e.Error()
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestExtraValues(t *testing.T) {
	tests := []struct {
		name, doc string
		want      *Component // only RESTCallee and MessageForwarder compared
	}{
		{"callee defaults", calleeDoc(`{"procedure": "com.example.p", "baseurl": ""}`),
			&Component{RESTCallee: &RESTCalleeExtra{Procedure: "com.example.p", Timeout: DefaultCalleeTimeout}}},
		{"callee set", calleeDoc(`{"procedure": "com.example.p", "baseurl": "https://api.example.com/v1/", "timeout": 2.5}`),
			&Component{RESTCallee: &RESTCalleeExtra{Procedure: "com.example.p", BaseURL: "https://api.example.com/v1/", Timeout: 2500 * time.Millisecond}}},
		{"callee from env", calleeDoc(`{"procedure": "com.example.p", "baseurl": "", "timeout": "${PORT}"}`),
			&Component{RESTCallee: &RESTCalleeExtra{Procedure: "com.example.p", Timeout: 9090 * time.Second}}},
		{"forwarder defaults", forwarderDoc(`{"subscriptions": [{"topic": "com.example.t", "url": "http://h/x"}]}`),
			&Component{MessageForwarder: &MessageForwarderExtra{Subscriptions: []ForwardedTopic{{Topic: "com.example.t", URL: "http://h/x", Match: "exact"}},
				Method: "POST", Retries: DefaultForwarderRetries, QueueSize: DefaultForwarderQueueSize}}},
		{"forwarder set", forwarderDoc(`{"subscriptions": [{"topic": "com.", "url": "https://h/x", "match": "prefix"}, {"topic": "a..b", "url": "${SECRET_URL}", "match": "wildcard"}],
			"method": "PUT", "expectedcode": 201, "debug": "${FLAG}", "retries": 0, "queuesize": 10}`),
			&Component{MessageForwarder: &MessageForwarderExtra{Subscriptions: []ForwardedTopic{
				{Topic: "com.", URL: "https://h/x", Match: "prefix"}, {Topic: "a..b", URL: "http://secret.example/hook", Match: "wildcard"}},
				Method: "PUT", ExpectedCode: 201, Debug: true, Retries: NoRetries, QueueSize: 10}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := mustParse(t, tt.doc)
			got := c.Workers[0].(*RouterWorker).Components[0]
			if !reflect.DeepEqual(got.RESTCallee, tt.want.RESTCallee) || !reflect.DeepEqual(got.MessageForwarder, tt.want.MessageForwarder) {
				t.Errorf("got %+v %+v,\nwant %+v %+v", got.RESTCallee, got.MessageForwarder, tt.want.RESTCallee, tt.want.MessageForwarder)
			}
		})
	}
}

// TestExtraYAML: a YAML extra decodes as the JSON one does.
func TestExtraYAML(t *testing.T) {
	doc := `
version: 2
workers:
- type: router
  realms: [{name: realm1}]
  components:
  - type: class
    classname: router.adapter.rest.RESTCallee
    realm: realm1
    role: trusted
    extra: {procedure: com.example.p, baseurl: "http://h/api", timeout: 0.5}
`
	c, _, errs := parseTest(t, doc, YAML)
	if errs != nil {
		t.Fatal(errs)
	}
	want := &RESTCalleeExtra{Procedure: "com.example.p", BaseURL: "http://h/api", Timeout: 500 * time.Millisecond}
	if got := c.Workers[0].(*RouterWorker).Components[0].RESTCallee; !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
