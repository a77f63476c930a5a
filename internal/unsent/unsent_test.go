package unsent

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

var (
	tooLong     = fmt.Errorf("rawsocket: %w", &wamp.MessageTooLongError{Type: wamp.TypeResult, Length: 5000, Limit: 1024})
	unencodable = fmt.Errorf("outbox: %w", &wamp.EncodeError{Type: wamp.TypeResult, Err: errors.New("json: non-finite float")})
)

// TestOf: each Send error has its reason, URI and text; other errors
// (a closed peer, a slow consumer) are not refusals.
func TestOf(t *testing.T) {
	tests := []struct {
		err    error
		reason Reason
		uri    wamp.URI
		text   string
	}{
		{tooLong, TooLong, wamp.ErrPayloadSizeExceeded, "RESULT of 5000 bytes, longer than the 1024 bytes the caller accepts"},
		{wamp.ErrMessageTooLong, TooLong, wamp.ErrPayloadSizeExceeded, "message longer than the caller accepts"},
		{unencodable, Unencodable, wamp.ErrInvalidArgument, "RESULT with a value the caller's serializer cannot encode (json: non-finite float)"},
		{wamp.ErrUnencodable, Unencodable, wamp.ErrInvalidArgument, "message with a value the caller's serializer cannot encode"},
		{wamp.ErrClosed, None, "", ""},
		{wamp.ErrSlowConsumer, None, "", ""},
		{nil, None, "", ""},
	}
	for _, tt := range tests {
		if got := Of(tt.err); got != tt.reason || Refused(tt.err) != (tt.reason != None) {
			t.Errorf("Of(%v) = %d, want %d", tt.err, got, tt.reason)
		}
		if tt.reason == None {
			continue
		}
		e := Error(wamp.TypeCall, 7, tt.err, "caller")
		if e.Error != tt.uri || Of(tt.err).URI() != tt.uri || e.Request != 7 || fmt.Sprint(e.Args...) != tt.text {
			t.Errorf("Error(%v) = %+v, want %s saying %q", tt.err, e, tt.uri, tt.text)
		}
	}
}

// TestSendPlainer: an ERROR goes again with its URI and a message saying
// what was cut, then bare when that is refused too; an ABORT or GOODBYE
// without details; a CANCEL with its mode, then without options; a RESULT
// has no plainer form.
func TestSendPlainer(t *testing.T) {
	long := &wamp.Error{RequestType: wamp.TypeCall, Request: 3, Details: wamp.Dict{"x": 1}, Error: "com.err", Args: wamp.List{"long"}}
	tests := []struct {
		name    string
		m       wamp.Message
		refuse  int // sends refused before one goes
		want    wamp.Message
		wantErr bool
	}{
		{"error", long, 0, &wamp.Error{RequestType: wamp.TypeCall, Request: 3, Details: wamp.Dict{}, Error: "com.err",
			Args: wamp.List{"the error's details and arguments were cut: RESULT with a value the client's serializer cannot encode (json: non-finite float)"}}, false},
		{"bare error", long, 1, &wamp.Error{RequestType: wamp.TypeCall, Request: 3, Details: wamp.Dict{}, Error: "com.err"}, false},
		{"refused twice", long, 2, nil, true},
		{"abort", &wamp.Abort{Details: wamp.Dict{"x": 1}, Reason: "wamp.error.no_such_realm"}, 0, &wamp.Abort{Details: wamp.Dict{}, Reason: "wamp.error.no_such_realm"}, false},
		{"goodbye", &wamp.Goodbye{Details: wamp.Dict{"x": 1}, Reason: wamp.ErrCloseNormal}, 0, &wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal}, false},
		{"cancel", &wamp.Cancel{Request: 3, Options: wamp.Dict{wamp.OptMode: wamp.CancelKill, "x": 1}}, 0, &wamp.Cancel{Request: 3, Options: wamp.Dict{wamp.OptMode: wamp.CancelKill}}, false},
		{"bare cancel", &wamp.Cancel{Request: 3, Options: wamp.Dict{wamp.OptMode: wamp.CancelKill, "x": 1}}, 1, &wamp.Cancel{Request: 3, Options: wamp.Dict{}}, false},
		{"result", &wamp.Result{Request: 3, Details: wamp.Dict{}}, 0, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sent wamp.Message
			refuse := tt.refuse
			err := SendPlainer(func(m wamp.Message) error {
				if refuse > 0 {
					refuse--
					return unencodable
				}
				sent = m
				return nil
			}, tt.m, unencodable, "client")
			if (err != nil) != tt.wantErr || fmt.Sprintf("%#v", sent) != fmt.Sprintf("%#v", tt.want) {
				t.Errorf("sent %#v (err %v), want %#v", sent, err, tt.want)
			}
		})
	}
}

// TestLog: refusals are counted by reason and logged once per LogEvery
// each, the unencodable one with its reason.
func TestLog(t *testing.T) {
	var buf bytes.Buffer
	l := NewLog(slog.New(slog.NewTextHandler(&buf, nil)))
	for range 2 {
		l.Note("realm1", 1, wamp.TypeResult, tooLong)
		l.Note("realm1", 1, wamp.TypeResult, unencodable)
	}
	if l.Count(TooLong) != 2 || l.Count(Unencodable) != 2 {
		t.Errorf("counts %d, %d; want 2, 2", l.Count(TooLong), l.Count(Unencodable))
	}
	out := buf.String()
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, "limit=1024") || !strings.Contains(out, "non-finite float") {
		t.Errorf("log:\n%s\nwant one line per reason", out)
	}
}
