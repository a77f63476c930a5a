package corpus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/test/internal/nodeproc"
	"github.com/junction-wamp/junction/wamp"
)

// mqttConnect connects an MQTT 3.1.1 client (paho) to addr as clientID;
// it disconnects when the test ends.
func mqttConnect(t *testing.T, addr, clientID string) paho.Client {
	t.Helper()
	o := paho.NewClientOptions().AddBroker("tcp://" + addr).SetClientID(clientID).
		SetProtocolVersion(4).SetAutoReconnect(false).SetConnectTimeout(goTimeout)
	c := paho.NewClient(o)
	if err := mqttWait(c.Connect()); err != nil {
		t.Fatalf("MQTT connect to %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Disconnect(250) })
	return c
}

// mqttWait waits up to goTimeout for a paho token.
func mqttWait(tok paho.Token) error {
	if !tok.WaitTimeout(goTimeout) {
		return fmt.Errorf("no answer within %s", goTimeout)
	}
	return tok.Error()
}

// mqttMessages subscribes c to filter (QoS 1); the payloads come on the
// channel returned.
func mqttMessages(t *testing.T, c paho.Client, filter string) <-chan string {
	t.Helper()
	ch := make(chan string, 16)
	if err := mqttWait(c.Subscribe(filter, 1, func(_ paho.Client, m paho.Message) {
		select {
		case ch <- string(m.Payload()):
		default:
		}
	})); err != nil {
		t.Fatalf("MQTT subscribe %s: %v", filter, err)
	}
	return ch
}

// nextMessage is the next payload from ch, or the test fails.
func nextMessage(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case p := <-ch:
		return p
	case <-time.After(goTimeout):
		t.Fatalf("no %s within %s", what, goTimeout)
		return ""
	}
}

// mqttNative bridges MQTT clients on the MQTT transport and on the
// universal one with WAMP clients both ways, with native JSON and CBOR
// payload mappings.
func mqttNative(t *testing.T, r *nodeRun) {
	universal := r.node.Addr(nodeproc.Transport(0, 1))
	if got := getBody(t, "http://"+universal+"/"); !strings.Contains(got, "<h1>MQTT native</h1>") {
		t.Errorf("GET / of the universal transport: %q", got)
	}
	m1 := mqttConnect(t, r.addr, "sensor-1")
	m2 := mqttConnect(t, universal, "display-1")
	s := joinGo(t, "ws://"+universal+"/ws", "realm1")
	wampEvents := subscribeEvents(t, s, "com.example.temperature")
	toDisplay := mqttMessages(t, m2, "com/example/temperature")
	if err := mqttWait(m1.Publish("com/example/temperature", 1, false, `{"args": [21.5], "kwargs": {"unit": "C"}}`)); err != nil {
		t.Fatalf("MQTT publish (QoS 1): %v", err)
	}
	if got := asJSON(t, nextEvent(t, wampEvents, "the WAMP event of an MQTT message")); got != "[21.5]" {
		t.Errorf("WAMP event args %s, want [21.5]", got)
	}
	if got := nextMessage(t, toDisplay, "the MQTT message on the universal transport"); sortedJSON(t, got) != `{"args":[21.5],"kwargs":{"unit":"C"}}` {
		t.Errorf("MQTT payload %q", got)
	}
	toSensor := mqttMessages(t, m1, "com/example/+/setpoint")
	if _, err := s.Publish(t.Context(), "com.example.heater.setpoint", wamp.List{19}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	if got := nextMessage(t, toSensor, "the MQTT message of a WAMP event (wildcard)"); got != `{"args":[19]}` {
		t.Errorf("MQTT payload %q, want {\"args\":[19]}", got)
	}
	binary := mqttMessages(t, m2, "com/example/binary/#")
	if _, err := s.Publish(t.Context(), "com.example.binary.frame", wamp.List{"x"}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	if got := nextMessage(t, binary, "the CBOR-mapped message (prefix)"); got != "\xa1\x64args\x81\x61x" {
		t.Errorf("MQTT payload %x, want CBOR {\"args\": [\"x\"]}", got)
	}
}

// mqttDynamic bridges MQTT and WAMP through the Python codec's decoder
// and encoder on the codec realm.
func mqttDynamic(t *testing.T, r *nodeRun) {
	r.node.WaitLog(t, "the codec", 1, mentions("mqtt codec ready"))
	m := mqttConnect(t, r.addr, "device-7")
	s := joinGo(t, "ws://"+r.addr+"/ws", "realm1")
	wampEvents := subscribeEvents(t, s, "devices.d7.state")
	if err := mqttWait(m.Publish("devices/d7/state", 1, false, "power=on\nlevel=3")); err != nil {
		t.Fatalf("MQTT publish: %v", err)
	}
	if got := asJSON(t, nextEvent(t, wampEvents, "the decoded WAMP event")); got != `["devices/d7/state"]` {
		t.Errorf("decoded args %s", got)
	}
	commands := mqttMessages(t, m, "devices/d7/command")
	if _, err := s.Publish(t.Context(), "devices.d7.command", wamp.List{"reboot", 5}, wamp.ObjectOf(wamp.Dict{"force": true}),
		wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	if got := nextMessage(t, commands, "the encoded MQTT message"); got != "topic=devices.d7.command\nargs=reboot,5\nforce=True" {
		t.Errorf("encoded payload %q", got)
	}
}

// mqttPassthrough bridges MQTT and WAMP with the payload type
// passthrough, both ways, on the MQTT transport and inside the universal
// one: the bytes pass untouched, with enc_algo "mqtt".
func mqttPassthrough(t *testing.T, r *nodeRun) {
	universal := r.node.Addr(nodeproc.Transport(0, 1))
	m1 := mqttConnect(t, r.addr, "sensor-1")
	m2 := mqttConnect(t, universal, "display-1")
	js := joinGo(t, "ws://"+universal+"/ws", "realm1")
	mp := joinWith(t, "ws://"+universal+"/ws", "realm1", func(ctx context.Context) (wamp.Peer, error) {
		return websocket.Dial(ctx, "ws://"+universal+"/ws", websocket.DialOptions{Subprotocols: []string{"wamp.2.msgpack"}})
	})
	const raw = "\x00\x01\xfe\xff not UTF-8: \xc3"
	jsEvents, mpEvents := passthruEvents(t, js, "com.example.raw"), passthruEvents(t, mp, "com.example.raw")
	toDisplay := mqttMessages(t, m2, "com/example/raw")
	if err := mqttWait(m1.Publish("com/example/raw", 1, false, raw)); err != nil {
		t.Fatalf("MQTT publish (QoS 1): %v", err)
	}
	for name, ch := range map[string]<-chan *client.Event{"JSON": jsEvents, "MessagePack": mpEvents} {
		select {
		case ev := <-ch:
			if string(ev.Passthru) != raw || ev.Args != nil || ev.Details[wamp.OptEncAlgo] != "mqtt" {
				t.Errorf("%s subscriber: event payload %q args %v details %v, want the MQTT bytes with enc_algo mqtt", name, ev.Passthru, ev.Args, ev.Details)
			}
		case <-time.After(goTimeout):
			t.Fatalf("%s subscriber: no event within %s", name, goTimeout)
		}
	}
	if got := nextMessage(t, toDisplay, "the MQTT message on the universal transport"); got != raw {
		t.Errorf("MQTT payload %q, want %q", got, raw)
	}
	toSensor := mqttMessages(t, m1, "com/example/+/command")
	if _, err := mp.PublishPassthru(t.Context(), "com.example.heater.command", []byte("\x07on"),
		wamp.Dict{wamp.OptAcknowledge: true, wamp.OptEncAlgo: "mqtt"}); err != nil {
		t.Fatal(err)
	}
	if got := nextMessage(t, toSensor, "the MQTT message of a WAMP passthru publication"); got != "\x07on" {
		t.Errorf("MQTT payload %q, want %q", got, "\x07on")
	}
}

// passthruEvents subscribes s to topic; its events come on the channel.
func passthruEvents(t *testing.T, s *client.Session, topic wamp.URI) <-chan *client.Event {
	t.Helper()
	ch := make(chan *client.Event, 4)
	ctx, cancel := context.WithTimeout(t.Context(), goTimeout)
	defer cancel()
	if _, err := s.Subscribe(ctx, topic, func(ev *client.Event) {
		select {
		case ch <- ev:
		default:
		}
	}, nil); err != nil {
		t.Fatalf("subscribe %s: %v", topic, err)
	}
	return ch
}

// sortedJSON is the JSON text doc with its object keys sorted, so that
// payloads compare whatever order the encoder wrote their keys in.
func sortedJSON(t *testing.T, doc string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("payload %q: %v", doc, err)
	}
	return asJSON(t, v)
}
