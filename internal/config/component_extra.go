package config

import (
	"strings"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// Defaults and bounds of the bridge components' "extra".
const (
	// DefaultCalleeTimeout is a RESTCallee's "timeout" when not given.
	DefaultCalleeTimeout = 30 * time.Second
	// MaxCalleeTimeout bounds a RESTCallee's "timeout" (a day).
	MaxCalleeTimeout = 24 * time.Hour
	// DefaultForwarderRetries is a MessageForwarder's "retries" when not
	// given.
	DefaultForwarderRetries = 5
	// DefaultForwarderQueueSize is a MessageForwarder's "queuesize" when
	// not given.
	DefaultForwarderQueueSize = 1000
	// NoRetries as MessageForwarderExtra.Retries: "retries": 0 in the
	// file, a failed delivery is dropped at once.
	NoRetries = -1
)

// RESTCalleeExtra is the "extra" of a RESTCallee: a procedure served by
// HTTP requests.
type RESTCalleeExtra struct {
	// Procedure is "procedure" (required): the URI it registers.
	Procedure string
	// BaseURL is "baseurl" (required): an http or https URL without a
	// query or fragment, below which every request goes; "" allows any
	// absolute http(s) URL.
	BaseURL string
	// Timeout is "timeout" (seconds, a number > 0, at most
	// MaxCalleeTimeout; default DefaultCalleeTimeout): it bounds one
	// call's whole HTTP exchange.
	Timeout time.Duration
}

// MessageForwarderExtra is the "extra" of a MessageForwarder: events
// forwarded as HTTP requests.
type MessageForwarderExtra struct {
	// Subscriptions is "subscriptions" (required, not empty).
	Subscriptions []ForwardedTopic
	// Method is "method" (an HTTP method, default "POST"): the method of
	// every forwarding request.
	Method string
	// ExpectedCode is "expectedcode" (100..599): the status a delivery must
	// get (default 0: any 2xx).
	ExpectedCode int
	// Debug is "debug": log each response at debug level (default false).
	Debug bool
	// Retries is "retries" (0..100, default DefaultForwarderRetries): the
	// attempts after a failed delivery. The file's 0 is NoRetries here; 0
	// in a hand-built Config means the default.
	Retries int
	// QueueSize is "queuesize" (1..1000000, default
	// DefaultForwarderQueueSize): the events waiting per subscription.
	QueueSize int
}

// ForwardedTopic is an item of a MessageForwarder's "subscriptions".
type ForwardedTopic struct {
	// Topic is "topic" (required): a URI, or a pattern as Match says.
	Topic string
	// URL is "url" (required): the absolute http or https URL events go to.
	URL string
	// Match is "match": "exact" (the default), "prefix" or "wildcard".
	Match string
}

// componentExtra decodes the "extra" of a component of a built-in class
// (c.Class set; pythonObject decodes the others) into its typed field. An
// absent "extra" is an empty object, so that each required member is
// reported at its own path.
func (d *decoder) componentExtra(o *object, c *Component) {
	v, ok := o.get("extra")
	if !ok {
		v = map[string]any{}
	}
	xo, ok := d.object(o.at("extra"), v)
	if !ok {
		return
	}
	switch c.Class {
	case ClassRESTCallee:
		c.RESTCallee = d.restCalleeExtra(xo)
	case ClassMessageForwarder:
		c.MessageForwarder = d.messageForwarderExtra(xo)
	}
	xo.doneListing()
}

func (d *decoder) restCalleeExtra(o *object) *RESTCalleeExtra {
	return &RESTCalleeExtra{
		Procedure: o.reqValidStr("procedure", looseURI, "invalid URI %q"),
		BaseURL:   o.reqValidStr("baseurl", baseURL, "must be an http or https URL without a query or fragment, not %q"),
		Timeout:   d.calleeTimeout(o),
	}
}

// baseURL reports whether s is a RESTCallee's base: "", or an absolute
// http(s) URL without a query, a fragment or a backslash.
func baseURL(s string) bool {
	if s == "" {
		return true
	}
	u, ok := httpURL(s)
	return ok && u.RawQuery == "" && !u.ForceQuery && u.Fragment == "" && !strings.ContainsRune(s, '\\')
}

// calleeTimeout decodes "timeout", in seconds.
func (d *decoder) calleeTimeout(o *object) time.Duration {
	v, ok := o.get("timeout")
	if !ok {
		return DefaultCalleeTimeout
	}
	s, ok := d.number(o.at("timeout"), v)
	if !ok {
		return DefaultCalleeTimeout
	}
	t := time.Duration(s * float64(time.Second))
	switch {
	case s <= 0:
		d.errorf(o.at("timeout"), "must be > 0 seconds, not %g", s)
	case s > MaxCalleeTimeout.Seconds():
		d.errorf(o.at("timeout"), "must be at most %g seconds (a day), not %g", MaxCalleeTimeout.Seconds(), s)
	case t < time.Millisecond:
		d.errorf(o.at("timeout"), "must be at least 0.001 seconds, not %g", s)
	default:
		return t
	}
	return DefaultCalleeTimeout
}

func (d *decoder) messageForwarderExtra(o *object) *MessageForwarderExtra {
	x := &MessageForwarderExtra{
		Subscriptions: d.forwardedTopics(o),
		Method:        o.validStr("method", "POST", httpToken, "must be an HTTP method, not %q"),
		ExpectedCode:  int(o.integer("expectedcode", 0, 100, 599)),
		Debug:         o.boolean("debug", false),
		Retries:       int(o.integer("retries", DefaultForwarderRetries, 0, 100)),
		QueueSize:     int(o.integer("queuesize", DefaultForwarderQueueSize, 1, 1_000_000)),
	}
	if x.Retries == 0 {
		x.Retries = NoRetries
	}
	return x
}

// forwardedTopics decodes "subscriptions": required, not empty.
func (d *decoder) forwardedTopics(o *object) []ForwardedTopic {
	var subs []ForwardedTopic
	present := o.list("subscriptions", func(path string, v any) {
		if so, ok := d.object(path, v); ok {
			subs = append(subs, d.forwardedTopic(so))
			so.doneListing()
		}
	})
	switch {
	case !present:
		o.required("subscriptions")
	case len(subs) == 0 && isEmptyList(o.m["subscriptions"]):
		d.errorf(o.at("subscriptions"), "must not be empty (give at least one {\"topic\", \"url\"})")
	}
	return subs
}

func isEmptyList(v any) bool {
	l, ok := v.([]any)
	return ok && len(l) == 0
}

func (d *decoder) forwardedTopic(o *object) ForwardedTopic {
	s := ForwardedTopic{Match: o.enum("match", wamp.MatchExact, "match", wamp.MatchExact, wamp.MatchPrefix, wamp.MatchWildcard)}
	topic := func(t string) bool { return wamp.ValidURI(wamp.URI(t), false, s.Match) }
	s.Topic = o.reqValidStr("topic", topic, "invalid URI %q for match "+s.Match)
	s.URL = o.reqValidStr("url", func(u string) bool { _, ok := httpURL(u); return ok }, "must be an http or https URL, not %q")
	return s
}
