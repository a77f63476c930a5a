package node

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/bridge/rest"
	"github.com/junction-wamp/junction/internal/config"
)

// TestComponentOptions: a decoded extra becomes the rest package's options
// one to one (the file's "retries": 0 its NoRetries), and the options the
// config accepts, rest accepts.
func TestComponentOptions(t *testing.T) {
	callee := &config.RESTCalleeExtra{Procedure: "com.example.p", BaseURL: "https://api.example.com/v1/", Timeout: 2500 * time.Millisecond}
	if got, want := calleeOptions(callee), (rest.CalleeOptions{Procedure: "com.example.p", BaseURL: "https://api.example.com/v1/", Timeout: 2500 * time.Millisecond}); !reflect.DeepEqual(got, want) {
		t.Errorf("callee options = %+v, want %+v", got, want)
	}
	subs := []config.ForwardedTopic{{Topic: "com.", URL: "https://h/x", Match: "prefix"}, {Topic: "a.b", URL: "http://h/y", Match: "exact"}}
	restSubs := []rest.Subscription{{Topic: "com.", URL: "https://h/x", Match: "prefix"}, {Topic: "a.b", URL: "http://h/y", Match: "exact"}}
	tests := []struct {
		x    *config.MessageForwarderExtra
		want rest.SubscriberOptions
	}{
		{&config.MessageForwarderExtra{Subscriptions: subs, Method: "PUT", ExpectedCode: 201, Debug: true, Retries: config.NoRetries, QueueSize: 10},
			rest.SubscriberOptions{Subscriptions: restSubs, Method: "PUT", ExpectedCode: 201, Debug: true, Retries: rest.NoRetries, QueueSize: 10}},
		{&config.MessageForwarderExtra{Subscriptions: subs[:1], Method: "POST", Retries: 3, QueueSize: config.DefaultForwarderQueueSize},
			rest.SubscriberOptions{Subscriptions: restSubs[:1], Method: "POST", Retries: 3, QueueSize: rest.DefaultQueueSize}},
	}
	for _, tt := range tests {
		if got := subscriberOptions(tt.x); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("subscriber options = %+v, want %+v", got, tt.want)
		}
	}
	for _, c := range []*config.Component{{Class: config.ClassRESTCallee, RESTCallee: callee}, {Class: config.ClassMessageForwarder, MessageForwarder: tests[0].x}} {
		if _, err := componentTypes[c.Class](componentEnv{Path: "c", Config: c}); err != nil {
			t.Errorf("%s: %v", c.Class, err)
		}
	}
}

// TestComponentWithoutExtra: a hand-built Config whose component has no
// extra is refused at the extra's path, not a panic.
func TestComponentWithoutExtra(t *testing.T) {
	for _, class := range []string{config.ClassRESTCallee, config.ClassMessageForwarder} {
		_, err := componentTypes[class](componentEnv{Path: "workers[0].components[0]", Config: &config.Component{Class: class}})
		if err == nil || !strings.HasPrefix(err.Error(), "workers[0].components[0].extra: rest: ") {
			t.Errorf("%s without extra: %v", class, err)
		}
	}
}

// TestComponentDefaultsAgree: package config documents the components'
// defaults; they must be the rest package's own.
func TestComponentDefaultsAgree(t *testing.T) {
	if config.DefaultCalleeTimeout != rest.DefaultTimeout || config.DefaultForwarderRetries != rest.DefaultRetries ||
		config.DefaultForwarderQueueSize != rest.DefaultQueueSize {
		t.Error("config and rest defaults differ")
	}
}
