package config

// DefaultTesteeMaxMessageSize is a websocket-testee's
// "options.max_message_size" when not given: 16 MiB, the largest message
// of the Autobahn test suite. Crossbar's testee has no limit by default.
const DefaultTesteeMaxMessageSize = 1 << 24

// TesteeWorker is a worker of "type": "websocket-testee": a WebSocket
// echo server for the Autobahn WebSocket test suite. It speaks no WAMP.
type TesteeWorker struct {
	// ID is "id" (default "").
	ID string
	// Options is "options": the options every worker has. The Python
	// runner's ("python", "pythonpath", "env") are ignored with a
	// warning: the testee runs no Python.
	Options WorkerOptions
	// Transport is "transport" (required).
	Transport TesteeTransport
}

func (w *TesteeWorker) WorkerID() string { return w.ID }
func (*TesteeWorker) isWorker()          {}

var _ Worker = (*TesteeWorker)(nil)

// TesteeTransport is a websocket-testee's "transport": a WebSocket
// transport, of which the testee uses the endpoint and
// "options.max_message_size". The WAMP keys ("serializers", "auth",
// "cookie") and "url", "debug" are ignored with a warning, and so is
// every other WebSocket option; "compression" is refused: the testee
// echoes uncompressed.
type TesteeTransport struct {
	// ID is "id" (default "").
	ID string
	// Endpoint is "endpoint" (required).
	Endpoint ListenEndpoint
	// MaxMessageSize is "options.max_message_size": the largest message
	// echoed, in bytes; a bigger one closes the connection with 1009
	// (default DefaultTesteeMaxMessageSize, which 0 gives too, with a
	// warning).
	MaxMessageSize int
}

// testeeOptions are the WebSocket options a testee applies.
var testeeOptions = []string{"max_message_size"}

// testeeWorker decodes a "websocket-testee" worker.
func (d *decoder) testeeWorker(o *object) *TesteeWorker {
	w := &TesteeWorker{}
	w.ID, w.Options = d.workerCommon(o, nil)
	d.pythonOptionsUsed(o, nil, false)
	if to, ok := o.reqChild("transport"); ok {
		w.Transport = d.testeeTransport(to)
	}
	o.done()
	return w
}

// testeeTransport decodes a testee's "transport".
func (d *decoder) testeeTransport(o *object) TesteeTransport {
	t := TesteeTransport{ID: d.id(o), MaxMessageSize: DefaultTesteeMaxMessageSize}
	if typ := o.str("type", "websocket"); typ != "websocket" {
		d.warnf(o.at("type"), "ignored: a websocket-testee's transport is always a WebSocket transport, not %q", typ)
	}
	t.Endpoint = d.listenEndpointAt(o)
	for _, k := range []string{"serializers", "auth", "cookie"} {
		o.ignored(k, ": the testee echoes WebSocket messages and speaks no WAMP")
	}
	o.ignored("url", ": the testee serves every URL path")
	o.ignored("debug", ": use --loglevel debug")
	if oo, ok := o.child("options"); ok {
		var opts WebSocketOptions
		d.webSocketOptionValues(oo, &opts)
		if opts.MaxMessageSize > 0 {
			t.MaxMessageSize = opts.MaxMessageSize
		} else if oo.has("max_message_size") {
			d.warnf(oo.at("max_message_size"), "0: Crossbar's \"no limit\" is the testee's default limit here (%d bytes)", DefaultTesteeMaxMessageSize)
		}
		warnUnusedOptions(oo, testeeOptions, "ignored: a websocket-testee applies only max_message_size")
		oo.unsupported("compression", ": the websocket-testee echoes uncompressed (permessage-deflate is not negotiated); remove \"compression\"")
		oo.done()
	}
	o.done()
	return t
}

// checkTesteeEndpoint reports a testee's endpoint e (of the transport at
// tp) that listens where an earlier transport does, "shared" or not: only
// router workers on a shared port run as one.
func checkTesteeEndpoint(d *decoder, tp string, e ListenEndpoint, seen *[]listener) {
	for _, l := range *seen {
		if overlap(l.e, e) {
			msg := "listens where %s does"
			if e.Shared {
				msg += ` ("shared": Junction runs one websocket-testee per port, which uses every core; remove the other worker)`
			}
			d.errorf(tp+".endpoint", msg, l.path)
			return
		}
	}
	e.Shared = false // a later transport on this port is an error too
	*seen = append(*seen, listener{tp, e})
}
