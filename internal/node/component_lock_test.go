package node

import (
	"testing"

	"github.com/junction-wamp/junction/internal/config"
)

// TestLockName: the lock of a component is the same for the same realm,
// class and extra wherever its transport leads, and another for another
// forwarder.
func TestLockName(t *testing.T) {
	fwd := func(topic string, port int) componentEnv {
		return componentEnv{Config: &config.Component{Realm: "realm1", Class: config.ClassMessageForwarder,
			Transport:        &config.ComponentTransport{Type: "websocket", Endpoint: config.ConnectEndpoint{Type: "tcp", Host: "127.0.0.1", Port: port}},
			MessageForwarder: &config.MessageForwarderExtra{Subscriptions: []config.ForwardedTopic{{Topic: topic, URL: "http://h/x"}}}}}
	}
	if lockName(fwd("a", 8080)) != lockName(fwd("a", 8081)) {
		t.Error("one forwarder reaching two nodes' routers has two locks")
	}
	if lockName(fwd("a", 8080)) == lockName(fwd("b", 8080)) {
		t.Error("two forwarders share a lock")
	}
}

// TestLocalRealm: a realm with "cluster": false stays on its node; an
// unknown realm (a container's router) is taken as clustered.
func TestLocalRealm(t *testing.T) {
	realms := []*config.Realm{{Name: "on", Options: config.RealmOptions{Cluster: true}}, {Name: "off"}}
	for _, tt := range []struct {
		realm string
		want  bool
	}{{"on", false}, {"off", true}, {"elsewhere", false}} {
		if got := localRealm(realms, tt.realm); got != tt.want {
			t.Errorf("localRealm(%s) = %v, want %v", tt.realm, got, tt.want)
		}
	}
}
