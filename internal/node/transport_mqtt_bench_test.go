package node

import (
	"context"
	"log/slog"
	"testing"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// BenchmarkMQTTPublish measures acknowledged publications through one
// node, one at a time, beside WebSocket in the same run: an MQTT QoS 1
// PUBLISH (JSON native payload) answered by its PUBACK, and a WAMP
// PUBLISH with acknowledge over WebSocket (JSON) answered by PUBLISHED;
// in both, a WAMP subscriber on RawSocket receives every event.
func BenchmarkMQTTPublish(b *testing.B) {
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [
			{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}},
			{"type": "mqtt", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			 "options": {"realm": "realm1", "payload_mapping": {"": {"type": "native", "serializer": "json"}}}},
			{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {"ws": {"type": "websocket"}}}]}]}`
	n := benchNode(b, doc)
	ctx := context.Background()
	addrs := map[string]string{}
	for _, l := range n.Listeners() {
		addrs[l.Transport] = l.Address
	}
	sub := benchJoin(b, ctx, "rawsocket", addrs["workers[0].transports[0]"])
	defer sub.Close()
	if _, err := sub.Subscribe(ctx, "bench.", func(*client.Event) {}, wamp.Dict{"match": "prefix"}); err != nil {
		b.Fatal(err)
	}
	b.Run("mqtt-qos1", func(b *testing.B) {
		o := paho.NewClientOptions().AddBroker("tcp://" + addrs["workers[0].transports[1]"]).SetClientID("bench").SetProtocolVersion(4)
		c := paho.NewClient(o)
		if err := wait(c.Connect()); err != nil {
			b.Fatal(err)
		}
		defer c.Disconnect(0)
		payload := []byte(`{"args": ["hello", 42]}`)
		b.ReportAllocs()
		for b.Loop() {
			if err := wait(c.Publish("bench/x", 1, false, payload)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("websocket-acknowledged", func(b *testing.B) {
		s := benchJoin(b, ctx, "websocket", "ws://"+addrs["workers[0].transports[2]"]+"/ws")
		defer s.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Publish(ctx, "bench.x", wamp.List{"hello", 42}, nil, wamp.Dict{"acknowledge": true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func benchJoin(b *testing.B, ctx context.Context, kind, addr string) *client.Session {
	var p wamp.Peer
	var err error
	if kind == "websocket" {
		p, err = websocket.Dial(ctx, addr, websocket.DialOptions{})
	} else {
		p, err = rawsocket.Dial(ctx, "tcp", addr, rawsocket.DialOptions{Serializer: "json"})
	}
	if err != nil {
		b.Fatal(err)
	}
	s, err := client.Join(ctx, p, client.Config{Realm: "realm1"})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// benchNode starts a node of the JSON config doc, quiet, stopped when
// the benchmark ends.
func benchNode(b *testing.B, doc string) *Node {
	b.Helper()
	cfg, _, err := config.Loader{}.Parse([]byte(doc), config.JSON)
	if err != nil {
		b.Fatal(err)
	}
	n, err := New(cfg, Options{Dir: b.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	if err := n.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { n.Stop(context.Background()) })
	return n
}
