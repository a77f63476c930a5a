package config

import "time"

// LongPollService is a path service of "type": "longpoll": WAMP over HTTP
// long-poll (POST <path>/open, <path>/<transport>/send, .../receive,
// .../close), for clients that cannot open a WebSocket. Its sessions are
// anonymous, as in Crossbar (the service has no "auth").
type LongPollService struct {
	// ID is "id" (default ""): a name for the service, not used.
	ID string
	// Options is "options".
	Options LongPollOptions
}

// LongPollOptions is a long-poll service's "options". In the typed
// Config a negative duration or limit means none (the file's 0), and 0
// means the default, so that a hand-built Config gets Crossbar's values.
type LongPollOptions struct {
	// RequestTimeout is "request_timeout" (seconds, >= 0): a receive
	// request with nothing to deliver is answered empty after this long,
	// and the client polls again (default 10; 0: held until a message
	// comes, which is what Crossbar 21.3.1 does whatever the value).
	RequestTimeout time.Duration
	// SessionTimeout is "session_timeout" (seconds, >= 0): a transport
	// that gets no request for this long, and holds no receive, is closed
	// with its session (default 30; 0: never).
	SessionTimeout time.Duration
	// QueueLimitBytes is "queue_limit_bytes" (>= 0): the bytes of
	// messages waiting for the client's receive past which its session
	// is closed as a slow consumer (default 131072; 0: no bound).
	QueueLimitBytes int
	// QueueLimitMessages is "queue_limit_messages" (>= 0): the same in
	// messages (default 100; 0: no bound).
	QueueLimitMessages int
	// Debug is "debug": accepted; Junction logs the service at debug
	// level whatever it says (default false).
	Debug bool
	// DebugTransportID is "debug_transport_id": every transport opened
	// gets this ID instead of a random one, so that a hand-written client
	// (curl) knows its URLs; opening again replaces the transport of that
	// ID. For debugging only (default "": random IDs).
	DebugTransportID string
}

// Crossbar's long-poll defaults.
const (
	DefaultLongPollRequestTimeout     = 10 * time.Second
	DefaultLongPollSessionTimeout     = 30 * time.Second
	DefaultLongPollQueueLimitBytes    = 128 << 10
	DefaultLongPollQueueLimitMessages = 100
)

// PathType returns "longpoll".
func (*LongPollService) PathType() string { return "longpoll" }

func (d *decoder) longPollService(o *object) *LongPollService {
	s := &LongPollService{ID: o.str("id", ""), Options: LongPollOptions{
		RequestTimeout:     DefaultLongPollRequestTimeout,
		SessionTimeout:     DefaultLongPollSessionTimeout,
		QueueLimitBytes:    DefaultLongPollQueueLimitBytes,
		QueueLimitMessages: DefaultLongPollQueueLimitMessages,
	}}
	if oo, ok := o.child("options"); ok {
		d.longPollOptions(oo, &s.Options)
		oo.done()
	}
	return s
}

func (d *decoder) longPollOptions(o *object, opts *LongPollOptions) {
	opts.Debug = o.boolean("debug", false)
	opts.DebugTransportID = o.str("debug_transport_id", "")
	opts.RequestTimeout = longPollSeconds(o, "request_timeout", opts.RequestTimeout)
	opts.SessionTimeout = longPollSeconds(o, "session_timeout", opts.SessionTimeout)
	opts.QueueLimitBytes = int(o.zeroIsNone("queue_limit_bytes", int64(opts.QueueLimitBytes), -1,
		"0: no bound, a client that stops polling makes the node queue any amount"))
	opts.QueueLimitMessages = int(o.zeroIsNone("queue_limit_messages", int64(opts.QueueLimitMessages), -1,
		"0: no bound, a client that stops polling makes the node queue any number of messages"))
}

// longPollSeconds decodes a timeout in whole seconds, 0 in the file
// meaning none (negative in the typed Config).
func longPollSeconds(o *object, k string, def time.Duration) time.Duration {
	n := o.integer(k, int64(def/time.Second), 0, maxInt32)
	if n == 0 {
		return -1
	}
	return time.Duration(n) * time.Second
}
