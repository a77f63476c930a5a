package node

import (
	"github.com/junction-wamp/junction/internal/bridge/rest"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/wamp"
)

// buildRESTCallee builds a RESTCallee: a procedure served by HTTP
// requests; in a cluster, registered shared (roundrobin) so that the
// copies every node runs all serve.
func buildRESTCallee(env componentEnv) (component, error) {
	o := calleeOptions(env.Config.RESTCallee)
	o.Logger = env.Logger
	if env.Cluster != nil {
		o.Invoke = wamp.InvokeRoundRobin // every node's copy serves
	}
	c, err := rest.NewCallee(o)
	if err != nil {
		return nil, fieldError(env.Path+".extra", err)
	}
	return newRESTComponent(env, c), nil
}

// buildMessageForwarder builds a MessageForwarder: events forwarded as
// HTTP requests; in a cluster, by one node at a time.
func buildMessageForwarder(env componentEnv) (component, error) {
	o := subscriberOptions(env.Config.MessageForwarder)
	o.Logger = env.Logger
	s, err := rest.NewSubscriber(o)
	if err != nil {
		return nil, fieldError(env.Path+".extra", err)
	}
	if env.Cluster == nil {
		return newRESTComponent(env, s), nil
	}
	// One node of the cluster at a time forwards the events: a new
	// Subscriber each time this node takes the lock.
	return newLockedComponent(env, func() (*restComponent, error) {
		s, err := rest.NewSubscriber(o)
		return newRESTComponent(env, s), err
	}), nil
}

// calleeOptions translates a RESTCallee's extra (nil in a hand-built
// Config: rest.NewCallee refuses the empty procedure).
func calleeOptions(x *config.RESTCalleeExtra) rest.CalleeOptions {
	if x == nil {
		return rest.CalleeOptions{}
	}
	return rest.CalleeOptions{Procedure: wamp.URI(x.Procedure), BaseURL: x.BaseURL, Timeout: x.Timeout}
}

// subscriberOptions translates a MessageForwarder's extra (nil in a
// hand-built Config: rest.NewSubscriber refuses no subscriptions). The
// file's "retries": 0, config.NoRetries, is rest.NoRetries; any other
// value maps one to one (0 is the default in both).
func subscriberOptions(x *config.MessageForwarderExtra) rest.SubscriberOptions {
	if x == nil {
		return rest.SubscriberOptions{}
	}
	o := rest.SubscriberOptions{Method: x.Method, ExpectedCode: x.ExpectedCode, Debug: x.Debug,
		Retries: x.Retries, QueueSize: x.QueueSize}
	if x.Retries == config.NoRetries {
		o.Retries = rest.NoRetries
	}
	for _, s := range x.Subscriptions {
		o.Subscriptions = append(o.Subscriptions, rest.Subscription{Topic: wamp.URI(s.Topic), URL: s.URL, Match: s.Match})
	}
	return o
}
