package rest

import (
	"strings"
	"testing"
)

// TestNewCalleeChecksOptions: the options a program builds by hand are
// checked as the config checks a component's extra.
func TestNewCalleeChecksOptions(t *testing.T) {
	tests := []struct {
		name string
		o    CalleeOptions
		err  string // substring; "" for none
	}{
		{"ok", CalleeOptions{Procedure: "com.example.p", BaseURL: "https://api.example.com/v1/"}, ""},
		{"any url", CalleeOptions{Procedure: "com.example.p"}, ""},
		{"no procedure", CalleeOptions{BaseURL: "http://x"}, `rest: callee procedure: invalid URI ""`},
		{"bad procedure", CalleeOptions{Procedure: "bad uri"}, `invalid URI "bad uri"`},
		{"ftp", CalleeOptions{Procedure: "p", BaseURL: "ftp://x"}, "rest: callee: rest: baseurl must be an http or https URL"},
		{"relative", CalleeOptions{Procedure: "p", BaseURL: "example.com/api"}, "baseurl must be an http or https URL"},
		{"query", CalleeOptions{Procedure: "p", BaseURL: "http://x/?a=1"}, "without a query or fragment"},
		{"fragment", CalleeOptions{Procedure: "p", BaseURL: "http://x/#f"}, "without a query or fragment"},
		{"backslash", CalleeOptions{Procedure: "p", BaseURL: `http://x/a\b`}, "baseurl must be an http or https URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce, err := NewCallee(tt.o)
			if !errContains(err, tt.err) {
				t.Fatalf("NewCallee: %v, want %q", err, tt.err)
			}
			if ce != nil && (ce.opts.Timeout != DefaultTimeout || ce.opts.ResponseLimit != DefaultResponseLimit) {
				t.Errorf("defaults: timeout %v, limit %d", ce.opts.Timeout, ce.opts.ResponseLimit)
			}
		})
	}
}

func TestNewSubscriberChecksOptions(t *testing.T) {
	sub := func(s Subscription) SubscriberOptions { return SubscriberOptions{Subscriptions: []Subscription{s}} }
	ok := Subscription{Topic: "com.example.t", URL: "http://127.0.0.1:1/x"}
	tests := []struct {
		name string
		o    SubscriberOptions
		err  string // substring; "" for none
	}{
		{"ok", sub(ok), ""},
		{"prefix", sub(Subscription{Topic: "com.", URL: "https://x", Match: "prefix"}), ""},
		{"wildcard", sub(Subscription{Topic: "a..b", URL: "http://x", Match: "wildcard"}), ""},
		{"none", SubscriberOptions{}, "rest: subscriber: no subscriptions"},
		{"bad match", sub(Subscription{Topic: "a.b", URL: "http://x", Match: "regex"}), `subscription 0: unknown match "regex"`},
		{"bad topic", sub(Subscription{Topic: "a..b", URL: "http://x"}), `subscription 0: invalid topic "a..b"`},
		{"relative url", sub(Subscription{Topic: "a.b", URL: "x.example/y"}), "subscription 0: rest: url must be an absolute http or https URL"},
		{"bad method", SubscriberOptions{Subscriptions: []Subscription{ok}, Method: "GE T"}, `invalid method "GE T"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSubscriber(tt.o)
			if !errContains(err, tt.err) {
				t.Fatalf("NewSubscriber: %v, want %q", err, tt.err)
			}
			if s != nil {
				s.cancel() // never started: nothing else to stop
			}
		})
	}
}

// TestSubscriberDefaults: zero options mean the defaults; NoRetries none.
func TestSubscriberDefaults(t *testing.T) {
	ok := []Subscription{{Topic: "com.example.t", URL: "http://127.0.0.1:1/x"}}
	tests := []struct {
		o                  SubscriberOptions
		retries, queueSize int
		method             string
	}{
		{SubscriberOptions{Subscriptions: ok}, DefaultRetries, DefaultQueueSize, "POST"},
		{SubscriberOptions{Subscriptions: ok, Retries: NoRetries, Method: "PUT", QueueSize: 10}, 0, 10, "PUT"},
		{SubscriberOptions{Subscriptions: ok, Retries: 3}, 3, DefaultQueueSize, "POST"},
	}
	for i, tt := range tests {
		s, err := NewSubscriber(tt.o)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		s.cancel()
		if o := s.opts; o.Retries != tt.retries || o.Method != tt.method || o.QueueSize != tt.queueSize {
			t.Errorf("%d: retries %d, method %s, queue %d; want %d, %s, %d", i, o.Retries, o.Method, o.QueueSize, tt.retries, tt.method, tt.queueSize)
		}
	}
}

func errContains(err error, want string) bool {
	if want == "" {
		return err == nil
	}
	return err != nil && strings.Contains(err.Error(), want)
}
