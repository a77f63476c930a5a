package bridge

import (
	"log/slog"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/wamp"
)

// TestEventFramePassthru: an event with a passthru payload (opaque bytes,
// no arguments) is not sent to event streams, and the node says why.
func TestEventFramePassthru(t *testing.T) {
	var log logtest.Log
	ev := &client.Event{Topic: "com.t", Publication: 5, Passthru: []byte{1}, Details: wamp.Dict{wamp.OptEncAlgo: "mqtt"}}
	if f := eventFrame(ev, log.Logger(slog.LevelInfo)); f != nil {
		t.Fatalf("frame %q, want none", f)
	}
	if lines := log.Lines(t, "bridge: event not sent to event streams: its payload is in passthru mode (opaque bytes, no arguments)"); len(lines) != 1 || lines[0]["topic"] != "com.t" {
		t.Errorf("log %s", log.String())
	}
}
