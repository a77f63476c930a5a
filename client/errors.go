package client

import (
	"errors"
	"fmt"

	"github.com/junction-wamp/junction/wamp"
)

// Errors of the client package. Router refusals are *wamp.RequestError.
var (
	// ErrClosed: the session (or client) was closed by Leave or Close,
	// or the request was made after it ended.
	ErrClosed = errors.New("client: session closed")
	// ErrSlowConsumer: the event queue overflowed, so the session was
	// closed rather than drop an event or block the reader. It wraps
	// wamp.ErrSlowConsumer.
	ErrSlowConsumer = fmt.Errorf("client: event queue full: %w", wamp.ErrSlowConsumer)
	// ErrProgressNotRequested: SendProgress on an invocation whose caller
	// did not ask for progressive results.
	ErrProgressNotRequested = errors.New("client: caller did not ask for progressive results")
	// ErrNoAuthenticator: the router challenged a method that was not
	// offered.
	ErrNoAuthenticator = errors.New("client: challenge for a method not offered")
)

// errNilHandler refuses a Register or Subscribe without a handler, which
// would otherwise fail only when the first invocation or event arrives.
var errNilHandler = errors.New("nil handler")

// protocolError is the error the client sends in ABORT when the router
// breaks the protocol.
func protocolError(format string, a ...any) *wamp.RequestError {
	return wamp.Errorf(wamp.ErrProtocolViolation, format, a...)
}
