package node

import (
	"github.com/junction-wamp/junction/internal/bridge/rest"
)

// buildRESTCallee builds a RESTCallee: a procedure served by HTTP requests.
func buildRESTCallee(env componentEnv) (component, error) {
	o, err := rest.ParseCalleeExtra(env.Config.Extra)
	if err != nil {
		return nil, relError(env.Path+".extra", err)
	}
	o.Logger = env.Logger
	c, err := rest.NewCallee(o)
	if err != nil {
		return nil, fieldError(env.Path, err)
	}
	return newRESTComponent(env, c), nil
}

// buildMessageForwarder builds a MessageForwarder: events forwarded as
// HTTP requests.
func buildMessageForwarder(env componentEnv) (component, error) {
	o, err := rest.ParseSubscriberExtra(env.Config.Extra)
	if err != nil {
		return nil, relError(env.Path+".extra", err)
	}
	o.Logger = env.Logger
	s, err := rest.NewSubscriber(o)
	if err != nil {
		return nil, fieldError(env.Path, err)
	}
	return newRESTComponent(env, s), nil
}
