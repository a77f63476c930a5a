package rest

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/junction-wamp/junction/internal/wamp"
)

// ParseSubscriberExtra reads a MessageForwarder's "extra": subscriptions
// (required, non-empty list of {topic, url, match}), method (default POST),
// expectedcode (100..599), debug, and our additions retries (0..100, 0 = no
// retry) and queuesize (1..1000000). Errors name the field relative to
// extra ("subscriptions[1].url: required"). HTTPClient and Logger are left
// for the caller to set.
func ParseSubscriberExtra(extra map[string]any) (SubscriberOptions, error) {
	r := &extraReader{m: extra}
	r.known("subscriptions", "method", "expectedcode", "debug", "retries", "queuesize")
	var o SubscriberOptions
	o.Subscriptions = r.subscriptions()
	if m, ok := r.str("method", false); ok {
		if !validMethod(m) {
			r.fail("method", "must be an HTTP method, not %q", m)
		}
		o.Method = m
	}
	if n, ok := r.integer("expectedcode", 100, 599); ok {
		o.ExpectedCode = int(n)
	}
	o.Debug = r.boolean("debug")
	if n, ok := r.integer("retries", 0, 100); ok {
		o.Retries = int(n)
		if n == 0 {
			o.Retries = NoRetries
		}
	}
	if n, ok := r.integer("queuesize", 1, 1_000_000); ok {
		o.QueueSize = int(n)
	}
	return o, r.err
}

// subscriptions reads the "subscriptions" list.
func (r *extraReader) subscriptions() []Subscription {
	v, ok := r.m["subscriptions"]
	if !ok {
		r.fail("subscriptions", "required")
		return nil
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		r.fail("subscriptions", "must be a non-empty array")
		return nil
	}
	subs := make([]Subscription, 0, len(list))
	for i, e := range list {
		path := "subscriptions[" + strconv.Itoa(i) + "]"
		m, ok := e.(map[string]any)
		if !ok {
			r.fail(path, "must be an object")
			return nil
		}
		sr := &extraReader{m: m, path: path + "."}
		subs = append(subs, sr.subscription())
		if r.err == nil {
			r.err = sr.err
		}
	}
	return subs
}

// subscription reads one {topic, url, match} item.
func (r *extraReader) subscription() Subscription {
	r.known("topic", "url", "match")
	var s Subscription
	if m, ok := r.str("match", false); ok {
		s.Match = m
		if m != wamp.MatchExact && m != wamp.MatchPrefix && m != wamp.MatchWildcard {
			r.fail("match", "must be exact, prefix or wildcard, not %q", m)
		}
	}
	if t, ok := r.str("topic", true); ok {
		s.Topic = wamp.URI(t)
		if !wamp.ValidURI(s.Topic, false, matchOf(s.Match)) {
			r.fail("topic", "invalid URI %q", t)
		}
	}
	if u, ok := r.str("url", true); ok {
		s.URL = u
		if err := checkForwardURL(u); err != nil {
			r.fail("url", "must be an http or https URL, not %q", u)
		}
	}
	return s
}

func matchOf(m string) string {
	if m == "" {
		return wamp.MatchExact
	}
	return m
}

// checkForwardURL checks a Subscriber target: an absolute http(s) URL.
func checkForwardURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("rest: url %q: %w", s, err)
	}
	if !isHTTP(u) {
		return fmt.Errorf("%w: %q", errNotHTTP, s)
	}
	return nil
}
