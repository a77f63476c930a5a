package node

import (
	"context"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// mqttDoc is a node with a RawSocket transport (transports[0], for WAMP
// clients) and an MQTT transport (transports[1]) with the given options
// members after the realm; the anonymous role may do anything but publish
// to "t.forbidden".
func mqttDoc(options string) string {
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "permissions": [
			{"uri": "", "match": "prefix", "allow": {"call": true, "register": true, "publish": true, "subscribe": true}},
			{"uri": "t.forbidden", "allow": {"call": false, "register": false, "publish": false, "subscribe": true}}]}]}],
		"transports": [
			{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}},
			{"type": "mqtt", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			 "options": {"realm": "realm1"` + options + `}}]}]}`
}

// mqttMappings: JSON under "t.", MessagePack under "mp.", the procedures
// "codec.enc" and "codec.dec" under "dyn."; nothing else is mapped.
const mqttMappings = `, "payload_mapping": {
	"t.": {"type": "native", "serializer": "json"},
	"mp.": {"type": "native", "serializer": "msgpack"},
	"dyn.": {"type": "dynamic", "encoder": "codec.enc", "decoder": "codec.dec"}}`

const (
	raw0  = "workers[0].transports[0]"
	mqtt1 = "workers[0].transports[1]"
)

// mqttClient connects an MQTT client to the node's MQTT transport; lost
// receives the error when the server closes the connection.
func mqttClient(t *testing.T, n *Node, user, password string) (paho.Client, chan error, error) {
	t.Helper()
	lost := make(chan error, 1)
	o := paho.NewClientOptions().AddBroker("tcp://" + address(t, n, mqtt1)).SetClientID(t.Name()).
		SetProtocolVersion(4).SetAutoReconnect(false).SetConnectRetry(false).SetConnectTimeout(testTimeout).
		SetConnectionLostHandler(func(_ paho.Client, err error) { lost <- err })
	if user != "" {
		o.SetUsername(user).SetPassword(password)
	}
	c := paho.NewClient(o)
	if err := wait(c.Connect()); err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { c.Disconnect(0) })
	return c, lost, nil
}

func mustMQTT(t *testing.T, n *Node) (paho.Client, chan error) {
	t.Helper()
	c, lost, err := mqttClient(t, n, "", "")
	if err != nil {
		t.Fatalf("mqtt connect: %v", err)
	}
	return c, lost
}

// wait waits for a paho token.
func wait(tok paho.Token) error {
	if !tok.WaitTimeout(testTimeout) {
		return fmt.Errorf("no answer within %s", testTimeout)
	}
	return tok.Error()
}

// mqttMessages subscribes c to filter and returns the messages it gets.
func mqttMessages(t *testing.T, c paho.Client, filter string) chan paho.Message {
	t.Helper()
	ch := make(chan paho.Message, 16)
	if err := wait(c.Subscribe(filter, 1, func(_ paho.Client, m paho.Message) { ch <- m })); err != nil {
		t.Fatalf("subscribe %s: %v", filter, err)
	}
	return ch
}

// wampEvents subscribes a WAMP session to topic (with opts) and returns its
// events.
func wampEvents(t *testing.T, s *client.Session, topic wamp.URI, opts wamp.Dict) chan *client.Event {
	t.Helper()
	ch := make(chan *client.Event, 16)
	if _, err := s.Subscribe(testCtx(t), topic, func(ev *client.Event) { ch <- ev }, opts); err != nil {
		t.Fatalf("subscribe %s: %v", topic, err)
	}
	return ch
}

func next[T any](t *testing.T, ch chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-testCtx(t).Done():
		t.Fatal("nothing arrived")
	}
	var zero T
	return zero
}

// TestMQTTToWAMP: MQTT publications at QoS 0 and 1 reach a WAMP
// subscriber, the JSON payload as args and kwargs, the topic with "." for
// "/"; an unmapped topic at QoS 0 is dropped (the next one arrives).
func TestMQTTToWAMP(t *testing.T) {
	n := start(t, parse(t, mqttDoc(mqttMappings), nil), t.TempDir())
	s := mustRaw(t, "tcp", address(t, n, raw0), client.Config{Realm: "realm1"})
	events := wampEvents(t, s, "t.", wamp.Dict{"match": "prefix"})
	c, _ := mustMQTT(t, n)
	if err := wait(c.Publish("unmapped/x", 0, false, `{"args": [0]}`)); err != nil {
		t.Fatal(err)
	}
	for qos := byte(0); qos <= 1; qos++ {
		if err := wait(c.Publish("t/a/b", qos, false, `{"args": [1, "two"], "kwargs": {"k": true}}`)); err != nil {
			t.Fatalf("qos %d: %v", qos, err)
		}
		ev := next(t, events)
		if ev.Topic != "t.a.b" || !reflect.DeepEqual(ev.Args, wamp.List{int64(1), "two"}) || ev.Kwargs.Dict()["k"] != true {
			t.Fatalf("qos %d: event %+v", qos, ev)
		}
	}
}

// TestMQTTQoS1RefusedCloses: a QoS 1 publication the router refuses (not
// authorized) gets no PUBACK: the connection is closed.
func TestMQTTQoS1RefusedCloses(t *testing.T) {
	n := start(t, parse(t, mqttDoc(mqttMappings), nil), t.TempDir())
	c, lost := mustMQTT(t, n)
	tok := c.Publish("t/forbidden", 1, false, `{}`)
	next(t, lost)
	if tok.WaitTimeout(testTimeout) && tok.Error() == nil {
		t.Fatal("the refused publication was acknowledged")
	}
}

// TestMQTTRefusals: QoS 2, and QoS 1 to an unmapped topic, close the
// connection.
func TestMQTTRefusals(t *testing.T) {
	n := start(t, parse(t, mqttDoc(mqttMappings), nil), t.TempDir())
	for _, tc := range []struct {
		name, topic string
		qos         byte
	}{{"qos 2", "t/x", 2}, {"qos 1 unmapped", "unmapped/x", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			c, lost := mustMQTT(t, n)
			c.Publish(tc.topic, tc.qos, false, `{}`)
			next(t, lost)
		})
	}
}

// TestWAMPToMQTT: WAMP events reach MQTT subscribers of an exact topic, a
// "+" and a "#" filter, as JSON {args, kwargs}.
func TestWAMPToMQTT(t *testing.T) {
	n := start(t, parse(t, mqttDoc(mqttMappings), nil), t.TempDir())
	s := mustRaw(t, "tcp", address(t, n, raw0), client.Config{Realm: "realm1"})
	c, _ := mustMQTT(t, n)
	for _, tc := range []struct{ filter, topic, mqttTopic string }{
		{"t/exact", "t.exact", "t/exact"},
		{"t/+/c", "t.b.c", "t/b/c"},
		{"t/deep/#", "t.deep.x.y", "t/deep/x/y"},
	} {
		msgs := mqttMessages(t, c, tc.filter)
		if _, err := s.Publish(testCtx(t), wamp.URI(tc.topic), wamp.List{"hi"}, wamp.ObjectOf(wamp.Dict{"n": int64(1)}), wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatal(err)
		}
		m := next(t, msgs)
		v, err := codec.DecodeValue(codec.JSON, m.Payload())
		if m.Topic() != tc.mqttTopic || m.Qos() != 0 || err != nil || !reflect.DeepEqual(v, any(wamp.Object{{Key: "args", Value: wamp.List{"hi"}}, {Key: "kwargs", Value: wamp.Object{{Key: "n", Value: int64(1)}}}})) {
			t.Errorf("%s: %s qos %d %q", tc.filter, m.Topic(), m.Qos(), m.Payload())
		}
	}
}

// TestMQTTSubscribeAll: the filter "#" alone is a WAMP prefix
// subscription to "", which matches every topic: it receives events on
// any topic, the router's meta events among them (its own subscription's
// on_subscribe), as in Crossbar.
func TestMQTTSubscribeAll(t *testing.T) {
	n := start(t, parse(t, mqttDoc(`, "payload_mapping": {"": {"type": "native", "serializer": "json"}}`), nil), t.TempDir())
	s := mustRaw(t, "tcp", address(t, n, raw0), client.Config{Realm: "realm1"})
	c, _ := mustMQTT(t, n)
	msgs := mqttMessages(t, c, "#")
	want := map[string]bool{"wamp/subscription/on_subscribe": true}
	for _, topic := range []string{"a/b", "x", "t/deep/er"} {
		want[topic] = true
		u := wamp.URI(strings.ReplaceAll(topic, "/", "."))
		if _, err := s.Publish(testCtx(t), u, wamp.List{topic}, nil, wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatal(err)
		}
	}
	for len(want) > 0 {
		m := next(t, msgs)
		if want[m.Topic()] && !strings.HasPrefix(m.Topic(), "wamp/") && string(m.Payload()) != `{"args":["`+m.Topic()+`"]}` {
			t.Errorf("%s: payload %q", m.Topic(), m.Payload())
		}
		delete(want, m.Topic())
	}
}

// TestMQTTSubscribeAllRefused: "#" is authorized against the URI "", so
// a role allowed to subscribe under "t." only gets a SUBACK failure for
// it, and QoS 0 for "t/#" in the same SUBSCRIBE.
func TestMQTTSubscribeAllRefused(t *testing.T) {
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "permissions": [
			{"uri": "t.", "match": "prefix", "allow": {"subscribe": true}}]}]}],
		"transports": [{"type": "mqtt", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"options": {"realm": "realm1"` + mqttMappings + `}}]}]}`
	n := start(t, parse(t, doc, nil), t.TempDir())
	o := paho.NewClientOptions().AddBroker("tcp://" + address(t, n, "workers[0].transports[0]")).SetClientID(t.Name()).
		SetProtocolVersion(4).SetAutoReconnect(false).SetConnectRetry(false).SetConnectTimeout(testTimeout)
	c := paho.NewClient(o)
	if err := wait(c.Connect()); err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(0)
	tok := c.SubscribeMultiple(map[string]byte{"#": 0, "t/#": 0}, func(paho.Client, paho.Message) {})
	if err := wait(tok); err != nil {
		t.Fatal(err)
	}
	if got, want := tok.(*paho.SubscribeToken).Result(), map[string]byte{"#": 0x80, "t/#": 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("SUBACK %v, want %v", got, want)
	}
}

// TestMQTTRetained: a retained WAMP event is delivered to a later MQTT
// subscriber with the retain flag, and an MQTT retained publication to a
// later WAMP subscriber.
func TestMQTTRetained(t *testing.T) {
	n := start(t, parse(t, mqttDoc(mqttMappings), nil), t.TempDir())
	s := mustRaw(t, "tcp", address(t, n, raw0), client.Config{Realm: "realm1"})
	if _, err := s.Publish(testCtx(t), "t.ret", wamp.List{"kept"}, nil, wamp.Dict{"retain": true, "acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	c, _ := mustMQTT(t, n)
	m := next(t, mqttMessages(t, c, "t/ret"))
	if !m.Retained() || string(m.Payload()) != `{"args":["kept"]}` {
		t.Fatalf("retained %v %q", m.Retained(), m.Payload())
	}
	if err := wait(c.Publish("t/ret2", 1, true, `{"args": ["mqtt"]}`)); err != nil {
		t.Fatal(err)
	}
	ev := next(t, wampEvents(t, s, "t.ret2", wamp.Dict{"get_retained": true}))
	if !reflect.DeepEqual(ev.Args, wamp.List{"mqtt"}) || ev.Details["retained"] != true {
		t.Fatalf("event %+v", ev)
	}
}

// TestMQTTNativeMsgpack: a MessagePack mapping both ways.
func TestMQTTNativeMsgpack(t *testing.T) {
	n := start(t, parse(t, mqttDoc(mqttMappings), nil), t.TempDir())
	s := mustRaw(t, "tcp", address(t, n, raw0), client.Config{Realm: "realm1"})
	events := wampEvents(t, s, "mp.in", nil)
	c, _ := mustMQTT(t, n)
	msgs := mqttMessages(t, c, "mp/out")
	payload, _ := codec.EncodeValue(codec.Msgpack, wamp.Dict{"args": wamp.List{int64(7)}, "kwargs": wamp.Dict{"x": "y"}})
	if err := wait(c.Publish("mp/in", 1, false, payload)); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, events); !reflect.DeepEqual(ev.Args, wamp.List{int64(7)}) || ev.Kwargs.Dict()["x"] != "y" {
		t.Fatalf("event %+v", ev)
	}
	if _, err := s.Publish(testCtx(t), "mp.out", wamp.List{"a"}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	v, err := codec.DecodeValue(codec.Msgpack, next(t, msgs).Payload())
	if err != nil || !reflect.DeepEqual(v, any(wamp.Object{{Key: "args", Value: wamp.List{"a"}}})) {
		t.Fatalf("payload %v %v", v, err)
	}
}

// TestMQTTDynamic: a Go component's procedures decode MQTT payloads and
// encode events, called with Crossbar's arguments.
func TestMQTTDynamic(t *testing.T) {
	n := start(t, parse(t, mqttDoc(mqttMappings), nil), t.TempDir())
	s := mustRaw(t, "tcp", address(t, n, raw0), client.Config{Realm: "realm1"})
	register(t, s, "codec.dec", func(args wamp.List) (any, error) {
		// (wamp_topic, mqtt_topic, payload) -> publish options
		return wamp.Dict{"args": wamp.List{fmt.Sprintf("%s|%s|%s", args[0], args[1], asString(args[2]))}}, nil
	})
	register(t, s, "codec.enc", func(args wamp.List) (any, error) {
		// (mqtt_topic, wamp_topic, args, kwargs) -> payload
		return []byte(fmt.Sprintf("%s|%s|%v", args[0], args[1], args[2])), nil
	})
	events := wampEvents(t, s, "dyn.in", nil)
	c, _ := mustMQTT(t, n)
	msgs := mqttMessages(t, c, "dyn/out")
	if err := wait(c.Publish("dyn/in", 1, false, "raw")); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, events); !reflect.DeepEqual(ev.Args, wamp.List{"dyn.in|dyn/in|raw"}) {
		t.Fatalf("event %+v", ev)
	}
	if _, err := s.Publish(testCtx(t), "dyn.out", wamp.List{"a"}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	if p := string(next(t, msgs).Payload()); p != "dyn/out|dyn.out|[a]" {
		t.Fatalf("payload %q", p)
	}
}

func asString(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(v)
}

// register registers fn as procedure: its result is the call's one
// positional result.
func register(t *testing.T, s *client.Session, procedure wamp.URI, fn func(wamp.List) (any, error)) {
	t.Helper()
	h := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		v, err := fn(inv.Args)
		if err != nil {
			return nil, err
		}
		return &client.Result{Args: wamp.List{v}}, nil
	}
	if _, err := s.Register(testCtx(t), procedure, h, nil); err != nil {
		t.Fatalf("register %s: %v", procedure, err)
	}
}

// TestMQTTTicket: a user name and password authenticate as ticket; a
// wrong password is refused with "not authorized".
func TestMQTTTicket(t *testing.T) {
	auth := `, "auth": {"ticket": {"type": "static", "principals": {"joe": {"ticket": "secret", "role": "anonymous"}}}}` + mqttMappings
	n := start(t, parse(t, mqttDoc(auth), nil), t.TempDir())
	s := mustRaw(t, "tcp", address(t, n, raw0), client.Config{Realm: "realm1"})
	events := wampEvents(t, s, "t.who", nil)
	c, _, err := mqttClient(t, n, "joe", "secret")
	if err != nil {
		t.Fatalf("joe: %v", err)
	}
	if err := wait(c.Publish("t/who", 1, false, `{}`)); err != nil {
		t.Fatal(err)
	}
	next(t, events)
	if _, _, err := mqttClient(t, n, "joe", "wrong"); err == nil || !strings.Contains(err.Error(), "not Authorized") {
		t.Fatalf("wrong password: %v", err)
	}
	if _, _, err := mqttClient(t, n, "", ""); err == nil {
		t.Fatal("anonymous accepted on a ticket-only transport")
	}
}

// TestUniversalMQTT: an MQTT client and a RawSocket client on one
// universal port.
func TestUniversalMQTT(t *testing.T) {
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "universal", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"rawsocket": {"serializers": ["json"]},
			"mqtt": {"options": {"realm": "realm1", "role": "anonymous", "payload_mapping": {"": {"type": "native", "serializer": "json"}}}}}]}]}`
	n := start(t, parse(t, doc, nil), t.TempDir())
	addr := address(t, n, "workers[0].transports[0]")
	s := mustRaw(t, "tcp", addr, client.Config{Realm: "realm1"})
	events := wampEvents(t, s, "u.x", nil)
	o := paho.NewClientOptions().AddBroker("tcp://" + addr).SetClientID("u").SetProtocolVersion(4).SetAutoReconnect(false)
	c := paho.NewClient(o)
	if err := wait(c.Connect()); err != nil {
		t.Fatalf("mqtt connect: %v", err)
	}
	defer c.Disconnect(0)
	if err := wait(c.Publish("u/x", 1, false, `{"args": ["via universal"]}`)); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, events); !reflect.DeepEqual(ev.Args, wamp.List{"via universal"}) {
		t.Fatalf("event %+v", ev)
	}
}

// TestMQTTWill: a client's will is discarded when it says DISCONNECT, and
// published when its connection is lost.
func TestMQTTWill(t *testing.T) {
	n := start(t, parse(t, mqttDoc(mqttMappings), nil), t.TempDir())
	s := mustRaw(t, "tcp", address(t, n, raw0), client.Config{Realm: "realm1"})
	events := wampEvents(t, s, "t.will", nil)
	for _, will := range []string{"discarded", "gone"} {
		conn := mqttWillConn(t, n, `{"args":["`+will+`"]}`)
		if will == "discarded" {
			conn.Write([]byte{0xe0, 0}) // DISCONNECT
			io.ReadAll(conn)            // the server closes once the session is over
		}
		conn.Close()
	}
	if ev := next(t, events); !reflect.DeepEqual(ev.Args, wamp.List{"gone"}) {
		t.Fatalf("first event %v, want the will of the lost connection", ev.Args)
	}
}

// mqttWillConn connects with a will on "t/will" whose payload is will.
func mqttWillConn(t *testing.T, n *Node, will string) net.Conn {
	t.Helper()
	body := append([]byte{0, 4, 'M', 'Q', 'T', 'T', 4, 0x06, 0, 0, 0, 1, 'w', 0, 6}, "t/will"...)
	body = append(append(body, 0, byte(len(will))), will...)
	conn, err := net.Dial("tcp", address(t, n, mqtt1))
	if err != nil {
		t.Fatal(err)
	}
	conn.Write(append([]byte{0x10, byte(len(body))}, body...))
	b := make([]byte, 4)
	if _, err := io.ReadFull(conn, b); err != nil || b[3] != 0 {
		t.Fatalf("connack %x %v", b, err)
	}
	// A PINGREQ answered: the testament's CALL went before it.
	conn.Write([]byte{0xc0, 0})
	if _, err := io.ReadFull(conn, b[:2]); err != nil || b[0] != 0xd0 {
		t.Fatalf("pingresp %x %v", b[:2], err)
	}
	return conn
}
