package wamp_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// TestMessageTooLongError: the error of a Send that refused a long
// message says what it refused and matches ErrMessageTooLong, wrapped or
// not; other errors do not.
func TestMessageTooLongError(t *testing.T) {
	e := &wamp.MessageTooLongError{Type: wamp.TypeResult, Length: 2048, Limit: 1024}
	if got, want := e.Error(), "wamp: message too long: RESULT of 2048 bytes, the peer accepts 1024"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("rawsocket: %w", e)
	if !errors.Is(e, wamp.ErrMessageTooLong) || !errors.Is(wrapped, wamp.ErrMessageTooLong) {
		t.Error("errors.Is(…, ErrMessageTooLong) = false")
	}
	if errors.Is(e, wamp.ErrSlowConsumer) || errors.Is(wamp.ErrClosed, wamp.ErrMessageTooLong) {
		t.Error("matches another error")
	}
}

// TestEncodeError: the error of a Send that could not encode its message
// says what and why, matches ErrUnencodable, wrapped or not, and keeps
// its reason reachable; other errors do not match it.
func TestEncodeError(t *testing.T) {
	reason := errors.New("json: non-finite float")
	e := &wamp.EncodeError{Type: wamp.TypeInvocation, Err: reason}
	if got, want := e.Error(), "wamp: cannot encode INVOCATION: json: non-finite float"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("outbox: %w", e)
	if !errors.Is(e, wamp.ErrUnencodable) || !errors.Is(wrapped, wamp.ErrUnencodable) || !errors.Is(wrapped, reason) {
		t.Error("errors.Is(…, ErrUnencodable or its reason) = false")
	}
	if errors.Is(e, wamp.ErrMessageTooLong) || errors.Is(wamp.ErrClosed, wamp.ErrUnencodable) {
		t.Error("matches another error")
	}
}
