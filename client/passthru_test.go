package client

import (
	"context"
	"errors"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

var mqttEnc = wamp.Dict{wamp.OptEncAlgo: "mqtt"}

// TestCallPassthru: CallPassthru sends its bytes in place of Arguments
// with the passthru options beside the call's own; a RESULT or an ERROR
// in passthru mode comes back as Result.Passthru or
// RequestError.Passthru, and a progressive one to the progress handler.
func TestCallPassthru(t *testing.T) {
	tests := []struct {
		name  string
		reply func(req wamp.ID) wamp.Message
		check func(t *testing.T, res *Result, err error)
	}{
		{"result", func(req wamp.ID) wamp.Message {
			return &wamp.Result{Request: req, Details: mqttEnc, Raw: wamp.NewPassthru([]byte("out"))}
		}, func(t *testing.T, res *Result, err error) {
			if err != nil || string(res.Passthru) != "out" || res.Args != nil || res.Details[wamp.OptEncAlgo] != "mqtt" {
				t.Errorf("result %+v, %v", res, err)
			}
		}},
		{"plain result", func(req wamp.ID) wamp.Message {
			return &wamp.Result{Request: req, Details: wamp.Dict{}, Args: wamp.List{1}}
		}, func(t *testing.T, res *Result, err error) {
			if err != nil || res.Passthru != nil || len(res.Args) != 1 {
				t.Errorf("result %+v, %v", res, err)
			}
		}},
		{"error", func(req wamp.ID) wamp.Message {
			return &wamp.Error{RequestType: wamp.TypeCall, Request: req, Details: mqttEnc, Error: "com.error.x",
				Raw: wamp.NewPassthru([]byte("why"))}
		}, func(t *testing.T, res *Result, err error) {
			var re *wamp.RequestError
			if !errors.As(err, &re) || re.URI != "com.error.x" || string(re.Passthru) != "why" || re.Args != nil {
				t.Errorf("error %#v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := joined(t, Config{})
			progress := make(chan *Result, 1)
			type out struct {
				res *Result
				err error
			}
			ch := make(chan out, 1)
			go func() {
				res, err := s.CallPassthru(context.Background(), "com.p", []byte{0, 1}, mqttEnc,
					WithOptions(wamp.Dict{"disclose_me": true}), WithProgress(func(r *Result) { progress <- r }))
				ch <- out{res, err}
			}()
			call := expect[*wamp.Call](r)
			if string(wamp.PayloadOf(call).Passthru()) != "\x00\x01" || call.Args != nil || call.Kwargs != nil {
				t.Errorf("CALL payload %+v", call)
			}
			for _, k := range []string{wamp.OptEncAlgo, "disclose_me", wamp.OptReceiveProgress} {
				if _, ok := call.Options[k]; !ok {
					t.Errorf("CALL options %v: no %s", call.Options, k)
				}
			}
			r.send(&wamp.Result{Request: call.Request, Details: wamp.Dict{wamp.OptProgress: true, wamp.OptEncAlgo: "mqtt"},
				Raw: wamp.NewPassthru([]byte("p"))})
			r.send(tt.reply(call.Request))
			got := recvFrom(t, ch)
			tt.check(t, got.res, got.err)
			if p := recvFrom(t, progress); string(p.Passthru) != "p" || !p.Progress {
				t.Errorf("progress %+v", p)
			}
		})
	}
}

// TestInvocationPassthru: an INVOCATION in passthru mode reaches the
// handler as Invocation.Passthru, and a Result or RequestError with
// Passthru (progressive too) is sent with its bytes in place of
// Arguments and the enc_* keys of Details as options.
func TestInvocationPassthru(t *testing.T) {
	tests := []struct {
		name  string
		reply func(inv *Invocation) (*Result, error)
		check func(t *testing.T, m wamp.Message)
	}{
		{"yield", func(inv *Invocation) (*Result, error) {
			return &Result{Passthru: append([]byte("re:"), inv.Passthru...),
				Details: wamp.Dict{wamp.OptEncAlgo: "x_mine", wamp.OptEncSerializer: "json", "other": 1}}, nil
		}, func(t *testing.T, m wamp.Message) {
			y, ok := m.(*wamp.Yield)
			if !ok || string(wamp.PayloadOf(y).Passthru()) != "re:in" || y.Args != nil ||
				y.Options[wamp.OptEncAlgo] != "x_mine" || y.Options[wamp.OptEncSerializer] != "json" || y.Options["other"] != nil {
				t.Errorf("YIELD %+v", m)
			}
		}},
		{"error", func(inv *Invocation) (*Result, error) {
			return nil, &wamp.RequestError{URI: "com.error.no", Details: mqttEnc, Passthru: []byte("no")}
		}, func(t *testing.T, m wamp.Message) {
			e, ok := m.(*wamp.Error)
			if !ok || e.Error != "com.error.no" || string(wamp.PayloadOf(e).Passthru()) != "no" || e.Args != nil ||
				e.Details[wamp.OptEncAlgo] != "mqtt" {
				t.Errorf("ERROR %+v", m)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := joined(t, Config{})
			register(t, s, r, "com.p", func(_ context.Context, inv *Invocation) (*Result, error) {
				if string(inv.Passthru) != "in" || inv.Args != nil || inv.Details[wamp.OptEncAlgo] != "mqtt" {
					t.Errorf("invocation %+v", inv)
				}
				if err := inv.SendProgress(&Result{Passthru: []byte("half"), Details: mqttEnc}); err != nil {
					t.Error(err)
				}
				return tt.reply(inv)
			}, nil)
			r.send(&wamp.Invocation{Request: 7, Registration: 100,
				Details: wamp.Dict{wamp.OptEncAlgo: "mqtt", wamp.OptReceiveProgress: true}, Raw: wamp.NewPassthru([]byte("in"))})
			p := expect[*wamp.Yield](r)
			if string(wamp.PayloadOf(p).Passthru()) != "half" || p.Options[wamp.OptProgress] != true || p.Options[wamp.OptEncAlgo] != "mqtt" {
				t.Errorf("progressive YIELD %+v", p)
			}
			tt.check(t, r.recv())
		})
	}
}
