package bridge

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// Payload values through the HTTP bridge keep their form, whatever the
// serializer of the WAMP peer on the other side: keys in the order sent
// (nested objects too), the last of duplicate keys at the place of the
// first, integers to 64 bits exactly.
var fidelityCases = []struct {
	name, in, out string // in: args and kwargs members of an HTTP body; out: as the peer gets them and they come back
}{
	{"key order",
		`"args":[{"zeta":0,"alpha":1,"mid":{"b":1,"a":2}}],"kwargs":{"zeta":0,"alpha":1,"nested":{"y":[{"d":1,"c":2}],"x":2}}`,
		`"args":[{"zeta":0,"alpha":1,"mid":{"b":1,"a":2}}],"kwargs":{"zeta":0,"alpha":1,"nested":{"y":[{"d":1,"c":2}],"x":2}}`},
	{"duplicate keys",
		`"kwargs":{"b":1,"a":2,"b":3,"n":{"y":1,"x":2,"y":{"q":1,"p":2}}}`,
		`"args":[],"kwargs":{"b":3,"a":2,"n":{"y":{"q":1,"p":2},"x":2}}`},
	{"large integers",
		`"args":[9007199254740993,18446744073709551615,-9223372036854775808,{"big":9007199254740993}]`,
		`"args":[9007199254740993,18446744073709551615,-9223372036854775808,{"big":9007199254740993}],"kwargs":{}`},
}

// showPayload answers with what its invocation got, as plain JSON text:
// the callee's own view of the order.
func showPayload(_ context.Context, inv *client.Invocation) (*client.Result, error) {
	text, err := payloadText(inv.Args, inv.Kwargs)
	if err != nil {
		return nil, err
	}
	return &client.Result{Args: wamp.List{text}}, nil
}

// payloadText is a payload as `"args":[...],"kwargs":{...}`, in the order
// its receiver has it.
func payloadText(args wamp.List, kwargs wamp.Object) (string, error) {
	a, err := codec.AppendPlainJSON(nil, orEmptyList(args))
	if err != nil {
		return "", err
	}
	k := []byte("{}")
	if len(kwargs) > 0 {
		if k, err = codec.AppendPlainJSON(nil, kwargs); err != nil {
			return "", err
		}
	}
	return `"args":` + string(a) + `,"kwargs":` + string(k), nil
}

func orEmptyList(l wamp.List) wamp.List {
	if l == nil {
		return wamp.List{}
	}
	return l
}

// binaryResult answers with binary values, positional and keyword.
func binaryResult(context.Context, *client.Invocation) (*client.Result, error) {
	b := []byte{0, 1, 2, 0xff}
	return &client.Result{Args: wamp.List{b}, Kwargs: wamp.Object{{Key: "b", Value: b}}}, nil
}

func TestCallerFidelity(t *testing.T) {
	for _, ser := range serializers {
		t.Run(ser, func(t *testing.T) {
			e := newEnv(t)
			peer := e.wirePeer(ser)
			for uri, h := range map[wamp.URI]client.InvocationHandler{
				"com.example.echo": echoArgs, "com.example.show": showPayload, "com.example.binary": binaryResult} {
				if _, err := peer.Register(context.Background(), uri, h, nil); err != nil {
					t.Fatal(err)
				}
			}
			c := newCaller(t, e.bridge, CallerOptions{})
			for _, tt := range fidelityCases {
				t.Run(tt.name, func(t *testing.T) {
					w := do(c, httpReq{body: `{"procedure":"com.example.show",` + tt.in + `}`})
					if want := `{"args":[` + strconv.Quote(tt.out) + `]}`; w.Code != 200 || w.Body.String() != want {
						t.Errorf("the callee got:\n%d %s\nwant\n%s", w.Code, w.Body, want)
					}
					w = do(c, httpReq{body: `{"procedure":"com.example.echo",` + tt.in + `}`})
					if want := "{" + resultMembers(tt.out) + "}"; w.Code != 200 || w.Body.String() != want {
						t.Errorf("echoed:\n%d %s\nwant\n%s", w.Code, w.Body, want)
					}
				})
			}
			// Binary values have no JSON form: the answer carries them as
			// Base64 strings.
			w := do(c, httpReq{body: `{"procedure":"com.example.binary"}`})
			if want := `{"args":["AAEC/w=="],"kwargs":{"b":"AAEC/w=="}}`; w.Code != 200 || w.Body.String() != want {
				t.Errorf("binary: %d %s, want %s", w.Code, w.Body, want)
			}
		})
	}
}

// resultMembers is the Caller's answer for a payload given as
// `"args":[...],"kwargs":{...}`: Crossbar's shapes leave out an empty
// kwargs, and an empty args when kwargs are there.
func resultMembers(payload string) string {
	switch {
	case len(payload) > len(`"args":[],`) && payload[:len(`"args":[],`)] == `"args":[],`:
		return payload[len(`"args":[],`):]
	case len(payload) > len(`,"kwargs":{}`) && payload[len(payload)-len(`,"kwargs":{}`):] == `,"kwargs":{}`:
		return payload[:len(payload)-len(`,"kwargs":{}`)]
	}
	return payload
}

// wireEvents subscribes a peer speaking serializer to topic; each event
// arrives as its payload's text (payloadText).
func wireEvents(t *testing.T, e *env, serializer string, topic wamp.URI) <-chan string {
	t.Helper()
	ch := make(chan string, 16)
	h := func(ev *client.Event) {
		text, err := payloadText(ev.Args, ev.Kwargs)
		if err != nil {
			text = err.Error()
		}
		ch <- text
	}
	if _, err := e.wirePeer(serializer).Subscribe(context.Background(), topic, h, nil); err != nil {
		t.Fatal(err)
	}
	return ch
}

func TestPublisherFidelity(t *testing.T) {
	for _, ser := range serializers {
		t.Run(ser, func(t *testing.T) {
			e := newEnv(t)
			events := wireEvents(t, e, ser, "com.example.t")
			h := newPublisher(t, e.bridge, PublisherOptions{})
			cases := fidelityCases
			// A plain JSON body has no binary values: a string in WAMP
			// JSON's binary form stays a string, which a WAMP JSON peer
			// then reads as binary (WAMP JSON's rule: it cannot tell them
			// apart), the others as the string.
			binary := `"args":["\u0000AAEC/w=="],"kwargs":{}`
			if ser == "json" {
				binary = `"args":["AAEC/w=="],"kwargs":{}` // payloadText writes binary as Base64
			}
			cases = append(cases[:len(cases):len(cases)], struct{ name, in, out string }{
				"binary form", `"args":["\u0000AAEC/w=="]`, binary})
			for _, tt := range cases {
				t.Run(tt.name, func(t *testing.T) {
					if w := do(h, httpReq{body: `{"topic":"com.example.t",` + tt.in + `}`}); w.Code != 200 {
						t.Fatalf("%d %s", w.Code, w.Body)
					}
					if got := waitFor(t, events, "event"); got != tt.out {
						t.Errorf("the subscriber got\n%s\nwant\n%s", got, tt.out)
					}
				})
			}
		})
	}
}

// The Webhook forwards the body as the text received, whatever it holds,
// and the event is {"body", "headers"} in that order on every serializer.
func TestWebhookFidelity(t *testing.T) {
	body := `{"zeta":0,"alpha":1,"alpha":2,"big":18446744073709551615}`
	for _, ser := range serializers {
		t.Run(ser, func(t *testing.T) {
			e := newEnv(t)
			events := wireEvents(t, e, ser, "com.example.hook")
			h := newWebhook(t, e.bridge, WebhookOptions{Topic: "com.example.hook"})
			hdr := http.Header{"X-Zeta": {"z"}, "X-Alpha": {"a2", "a1"}}
			if w := do(h, httpReq{body: body, header: hdr}); w.Code != 202 {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			want := `"args":[{"body":` + strconv.Quote(body) +
				`,"headers":{"Host":["example.com"],"X-Alpha":["a2","a1"],"X-Zeta":["z"]}}],"kwargs":{}`
			if got := waitFor(t, events, "event"); got != want {
				t.Errorf("the subscriber got\n%s\nwant\n%s", got, want)
			}
		})
	}
}
