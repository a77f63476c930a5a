package bridge

import (
	"net/http"
	"strings"

	"github.com/junction-wamp/junction/wamp"
)

// Server-Sent Events, as the HTML standard defines the text/event-stream
// format: an event is "id:", "event:" and "data:" lines, then an empty
// line; a line that starts with ':' is a comment, which a client ignores
// (the heartbeats). JSON holds no raw line break, so every data is one
// line.

// eventStreamType is the Content-Type of an event stream answer.
var eventStreamType = []string{"text/event-stream; charset=utf-8"}

// heartbeatFrame is the comment written to an idle stream, so that
// proxies and clients see it alive.
var heartbeatFrame = []byte(":\n\n")

// startEvents writes the 200 head of an event stream and sends it at once,
// so that the client knows the stream is open before the first event.
func startEvents(w http.ResponseWriter, rc *http.ResponseController) {
	h := w.Header()
	h["Content-Type"] = eventStreamType
	h.Set("X-Accel-Buffering", "no") // nginx: pass the events on at once
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
}

// appendEvent appends one event with the given id and name whose data is
// what data appends; a name or id with a line break (no valid URI has
// one) has it replaced by a space, so that it cannot end its field.
func appendEvent(b []byte, id, name string, data jsonAnswer) ([]byte, error) {
	start := len(b)
	if id != "" {
		b = append(append(append(b, "id: "...), oneLine(id)...), '\n')
	}
	b = append(append(append(b, "event: "...), oneLine(name)...), '\n')
	b, err := data.appendJSON(append(b, "data: "...))
	if err != nil {
		return b[:start], err
	}
	return append(b, '\n', '\n'), nil
}

// oneLine is s with its line breaks (CR, LF) replaced by spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

// payloadBody is an event's data: {"args": [...], "kwargs": {...}}, both
// always there (empty when the payload has none), kwargs in the payload's
// key order; the Subscriber component's body.
type payloadBody struct {
	args   wamp.List
	kwargs wamp.Object
}

func (pb payloadBody) appendJSON(b []byte) ([]byte, error) {
	args, kwargs := pb.args, pb.kwargs
	if args == nil {
		args = wamp.List{}
	}
	if kwargs == nil {
		kwargs = wamp.Object{}
	}
	return appendMembers(append(b, `{"args":`...), args, `,"kwargs":`, kwargs)
}

var _ jsonAnswer = payloadBody{}
