package client

import (
	"log/slog"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// Config defaults.
const (
	DefaultEventQueue = 4096            // bound of a session's event queue
	DefaultCancelWait = 5 * time.Second // wait for the answer to a CANCEL
)

// Config says how a session joins its realm. The zero value joins realm ""
// (which routers refuse), so Realm is the one field to set.
type Config struct {
	// Realm to join.
	Realm wamp.URI
	// AuthID is sent as HELLO.Details.authid when not empty.
	AuthID string
	// Auth lists the authentication methods offered, in order of
	// preference; none means anonymous.
	Auth []Authenticator
	// HelloDetails are extra HELLO details (agent, ...); they override
	// the ones Join computes, except roles.
	HelloDetails wamp.Dict
	// Logger receives the session's logs; nil discards them.
	Logger *slog.Logger
	// CallTimeout is sent as the CALL timeout option (in milliseconds) when
	// the call's context has no deadline and no WithTimeout option is
	// given; 0 sends none. The router enforces it.
	CallTimeout time.Duration
	// CancelWait bounds how long a call canceled in kill mode waits for the
	// router's answer before returning anyway; 0 means DefaultCancelWait.
	CancelWait time.Duration
	// EventQueue bounds the events waiting for their handlers; 0 means
	// DefaultEventQueue. When the queue is full the session is closed as
	// a slow consumer (ErrSlowConsumer): events are never dropped silently,
	// and the reader never blocks on a handler.
	EventQueue int
}

func (c *Config) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

func (c *Config) eventQueue() int {
	if c.EventQueue <= 0 {
		return DefaultEventQueue
	}
	return c.EventQueue
}

func (c *Config) cancelWait() time.Duration {
	if c.CancelWait <= 0 {
		return DefaultCancelWait
	}
	return c.CancelWait
}
