package rest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// serializers are the WAMP serializers a peer of the component may speak.
var serializers = []string{"json", "msgpack", "cbor", "ubjson"}

// wireClient joins e's router over a real WebSocket speaking serializer,
// so that its payloads are encoded and decoded as on the wire.
func (e *env) wireClient(t *testing.T, serializer string) *client.Client {
	t.Helper()
	e.mu.Lock()
	r := e.r
	e.mu.Unlock()
	h, err := websocket.NewHandler(websocket.Options{Attacher: r})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	dial := func(ctx context.Context) (wamp.Peer, error) {
		return websocket.Dial(ctx, url, websocket.DialOptions{Subprotocols: []string{"wamp.2." + serializer}})
	}
	c, err := client.Connect(testCtx(t), dial, client.Config{Realm: realm}, client.ReconnectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// ordered decodes JSON text into payload values as a receiver has them
// (dictionaries as Objects in order, the last of duplicate keys at the
// first's place).
func ordered(t *testing.T, text string) any {
	t.Helper()
	v, err := codec.DecodePlainJSON([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The Subscriber POSTs each event's payload with its keys in the order the
// publisher sent them, whatever the publisher's serializer.
func TestSubscriberFidelity(t *testing.T) {
	tests := []struct{ name, args, kwargs, want string }{
		{"key order", `[{"zeta":0,"alpha":1,"mid":{"b":1,"a":2}}]`, `{"zeta":0,"alpha":1,"nested":{"y":[{"d":1,"c":2}],"x":2}}`,
			`{"args":[{"zeta":0,"alpha":1,"mid":{"b":1,"a":2}}],"kwargs":{"zeta":0,"alpha":1,"nested":{"y":[{"d":1,"c":2}],"x":2}}}`},
		{"duplicate keys", `[]`, `{"b":1,"a":2,"b":3,"n":{"y":1,"x":2,"y":4}}`,
			`{"args":[],"kwargs":{"b":3,"a":2,"n":{"y":4,"x":2}}}`},
		{"large integers", `[9007199254740993,18446744073709551615,-9223372036854775808]`, `{"big":9007199254740993}`,
			`{"args":[9007199254740993,18446744073709551615,-9223372036854775808],"kwargs":{"big":9007199254740993}}`},
	}
	for _, ser := range serializers {
		t.Run(ser, func(t *testing.T) {
			rc, url := sink(t)
			s, err := NewSubscriber(SubscriberOptions{Subscriptions: []Subscription{{Topic: "com.example.t", URL: url}}})
			if err != nil {
				t.Fatal(err)
			}
			e := newEnv(t)
			startComponent(t, e, s)
			pub := e.wireClient(t, ser)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					args, _ := ordered(t, tt.args).([]any)
					kwargs, _ := ordered(t, tt.kwargs).(wamp.Object)
					publishObject(t, pub, args, kwargs)
					if got := recv(t, testCtx(t), rc.ch); got.body != tt.want {
						t.Errorf("body\n%s\nwant\n%s", got.body, tt.want)
					}
				})
			}
			// Binary values have no JSON form: Base64 strings.
			publishObject(t, pub, wamp.List{[]byte{0, 1, 2, 0xff}}, wamp.Object{{Key: "b", Value: []byte{0xff}}})
			if got, want := recv(t, testCtx(t), rc.ch).body, `{"args":["AAEC/w=="],"kwargs":{"b":"/w=="}}`; got != want {
				t.Errorf("binary: body %s, want %s", got, want)
			}
		})
	}
}

func publishObject(t *testing.T, pub *client.Client, args wamp.List, kwargs wamp.Object) {
	t.Helper()
	if _, err := pub.Publish(testCtx(t), "com.example.t", args, kwargs, ack); err != nil {
		t.Fatal(err)
	}
}

// The Callee sends params in the order of the call's dictionary and the
// body as given, and answers {"code", "content", "headers"} in that order
// with the response text as received, whatever the caller's serializer.
func TestCalleeFidelity(t *testing.T) {
	const answer = `{"zeta":0,"alpha":1,"alpha":2,"big":18446744073709551615}`
	got := make(chan seen, 8)
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{method: r.Method, query: r.URL.RawQuery, body: string(b)}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Zeta", "z")
		io.WriteString(w, answer)
	})
	for _, ser := range serializers {
		t.Run(ser, func(t *testing.T) {
			ce, err := NewCallee(CalleeOptions{Procedure: proc, BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			e := newEnv(t)
			startComponent(t, e, ce)
			caller := e.wireClient(t, ser)
			kwargs, _ := ordered(t, `{"method":"POST","url":"x","body":"{\"b\":1,\"a\":2}","params":{"zeta":"0","alpha":[1,"2"],"mid":1.5}}`).(wamp.Object)
			res, err := caller.Call(testCtx(t), proc, nil, kwargs)
			if err != nil {
				t.Fatal(err)
			}
			req := recv(t, testCtx(t), got)
			if req.query != "zeta=0&alpha=1&alpha=2&mid=1.5" || req.body != `{"b":1,"a":2}` {
				t.Errorf("request ?%s body %s", req.query, req.body)
			}
			text, err := codec.AppendPlainJSON(nil, res.Args)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(text), `[{"code":200,"content":"{\"zeta\":0,\"alpha\":1,\"alpha\":2,\"big\":18446744073709551615}","headers":{"Content-Length":["57"],"Content-Type":["application/json"],"Date":[`) ||
				!strings.HasSuffix(string(text), `],"X-Zeta":["z"]}}]`) {
				t.Errorf("result %s", text)
			}
			// A binary body is sent as its bytes.
			if _, err := caller.Call(testCtx(t), proc, wamp.List{"PUT", "x", []byte{0, 1, 2, 0xff}}, nil); err != nil {
				t.Fatal(err)
			}
			if req := recv(t, testCtx(t), got); req.method != "PUT" || req.body != "\x00\x01\x02\xff" {
				t.Errorf("binary body: %s %q", req.method, req.body)
			}
		})
	}
}
