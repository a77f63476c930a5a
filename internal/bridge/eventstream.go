package bridge

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
)

// Defaults of the event stream's options.
const (
	// DefaultHeartbeat applies when Heartbeat is 0.
	DefaultHeartbeat = 15 * time.Second
	// DefaultStreamQueueEvents and DefaultStreamQueueBytes apply when
	// QueueEvents and QueueBytes are 0.
	DefaultStreamQueueEvents = 1024
	DefaultStreamQueueBytes  = 1 << 20
	// streamWriteTimeout bounds one write to a client: one that stops
	// reading while no event comes loses its stream at the next heartbeat.
	streamWriteTimeout = 30 * time.Second
	// unsubscribeTimeout bounds the UNSUBSCRIBE of a stream that ended.
	unsubscribeTimeout = 5 * time.Second
	// slowLogInterval is the least time between two "slow client" lines.
	slowLogInterval = 10 * time.Second
)

// EventStreamOptions configure NewEventStream.
type EventStreamOptions struct {
	// RequireIP and RequireTLS refuse clients as the other services do
	// (403).
	RequireIP  IPRules
	RequireTLS bool
	// Heartbeat is how long a stream may stay silent before a comment line
	// is written to it, so that proxies keep it open and a client that
	// went away is noticed; 0 means DefaultHeartbeat, negative none.
	Heartbeat time.Duration
	// QueueEvents and QueueBytes bound the events waiting to be written to
	// one client: a client that falls that far behind is closed as slow
	// (counted and logged). 0 means DefaultStreamQueueEvents and
	// DefaultStreamQueueBytes.
	QueueEvents int
	QueueBytes  int64
	// StreamLimits cap the streams open at once, in all and per client
	// IP address: a request past a cap gets 503 with Retry-After.
	StreamLimits
	// Identity, when set, tells who each request comes from (options.auth):
	// the stream's subscriptions are made for that identity, which the
	// router authorizes (a refusal is 403) and whose events the
	// publications' eligible and exclude lists decide. nil: every stream
	// subscribes as the service's session. (A browser's EventSource
	// cannot send headers: an httpauth.Resolver with QueryToken reads the
	// credential from the access_token query parameter.)
	Identity Identifier
	// Debug logs each stream's opening, refusal and end (with why) at
	// debug level.
	Debug bool
	// Logger receives the service's logs; nil discards them.
	Logger *slog.Logger
}

// EventStream serves WAMP events as Server-Sent Events: a GET with
// ?topic=URI (repeatable), &match=prefix|wildcard and &get_retained=true
// subscribes the service's session to each topic for as long as the
// client stays, and writes each event as an SSE event: its publication ID
// as "id", its topic as "event", {"args", "kwargs"} as "data".
//
// Every stream holds its own subscriptions on the one session (the
// router gives them one subscription ID; the client dispatches each event
// to every stream's handler on the session's dispatch goroutine, which
// only queues it). An event is encoded once, however many streams get it.
type EventStream struct {
	p         *pipeline
	s         Session
	heartbeat time.Duration // 0: none
	maxEvents int
	maxBytes  int64
	done      chan struct{} // closed by Shutdown
	shutdown  sync.Once
	frames    frameCache
	slowLog   lograte.Limit
	limit     *streamLimit

	streams   atomic.Int64  // streams open now
	delivered atomic.Uint64 // events written to clients
	slow      atomic.Uint64 // clients closed as slow
}

var _ http.Handler = (*EventStream)(nil)

// NewEventStream returns the event stream service over s.
func NewEventStream(s Session, o EventStreamOptions) (*EventStream, error) {
	if s == nil {
		return nil, errors.New("bridge: session: required")
	}
	if o.QueueEvents < 0 || o.QueueBytes < 0 {
		return nil, errors.New("bridge: queue limits: must be >= 0")
	}
	if err := o.StreamLimits.validate(); err != nil {
		return nil, err
	}
	p := newPipeline(&Common{RequireIP: o.RequireIP, RequireTLS: o.RequireTLS, Debug: o.Debug, Logger: o.Logger}, false, "eventstream")
	p.allow = streamMethods
	// A WAMP error of a SUBSCRIBE (not_authorized, invalid_uri) is
	// answered with the status table's status: an event stream has no
	// Crossbar clients to keep at 200.
	if err := p.setAccess(&Access{Identity: o.Identity, ErrorStatus: ErrorStatus{On: true}}); err != nil {
		return nil, err
	}
	es := &EventStream{p: p, s: s, heartbeat: o.heartbeat(), maxEvents: o.QueueEvents, maxBytes: o.QueueBytes,
		done: make(chan struct{}), slowLog: lograte.Limit{Interval: slowLogInterval}, limit: newStreamLimit(o.StreamLimits, p.log)}
	if es.maxEvents == 0 {
		es.maxEvents = DefaultStreamQueueEvents
	}
	if es.maxBytes == 0 {
		es.maxBytes = DefaultStreamQueueBytes
	}
	p.act = http.HandlerFunc(es.serve)
	return es, nil
}

func (o *EventStreamOptions) heartbeat() time.Duration { return heartbeatOf(o.Heartbeat) }

// heartbeatOf is a Heartbeat option's interval, 0 for none (event
// stream, Caller).
func heartbeatOf(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultHeartbeat
	case d < 0:
		return 0
	}
	return d
}

// ServeHTTP serves one stream, counted by its status.
func (es *EventStream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	es.p.serve(w, r)
}

// Shutdown ends every stream (each answer ends cleanly, as a client sees
// a server that closes the stream) and refuses new ones with 503. The
// node calls it when its web transport shuts down.
func (es *EventStream) Shutdown() {
	es.shutdown.Do(func() { close(es.done) })
}

// serve checks the request, subscribes, then writes the events until the
// stream ends.
func (es *EventStream) serve(w http.ResponseWriter, r *http.Request) {
	es.p.cors(w, r)
	if r.Method == http.MethodOptions {
		preflight(w, streamMethods)
		return
	}
	st, err := es.open(w, r)
	if err != nil {
		es.p.respond(w, r, err)
		return
	}
	es.run(r, st)
}

// open checks the request (the client's address and TLS, the method,
// the credentials, the query), takes its place under the stream caps and
// subscribes a new stream for the request's identity.
func (es *EventStream) open(w http.ResponseWriter, r *http.Request) (*stream, error) {
	if err := es.p.checkPeer(r); err != nil {
		return nil, err
	}
	if r.Method != http.MethodGet {
		return nil, refuse(http.StatusMethodNotAllowed, textStreamMethod, echo(r.Method))
	}
	as, err := es.p.identify(r)
	if err != nil {
		return nil, err
	}
	sq, err := parseStreamQuery(r.URL.RawQuery)
	if err != nil {
		return nil, err
	}
	if es.closed() {
		return nil, refuse(http.StatusServiceUnavailable, textStreamsShutdown)
	}
	cs := es.s.Session()
	if cs == nil || cs.Err() != nil {
		return nil, ErrUnavailable
	}
	release, err := es.limit.take(r)
	if err != nil {
		return nil, err
	}
	rc := http.NewResponseController(w)
	st := &stream{es: es, w: w, rc: rc, cs: cs, q: newStreamQueue(rc, es.maxEvents, es.maxBytes), peer: r.RemoteAddr, release: release}
	if err := st.subscribe(client.WithIdentity(r.Context(), as), &sq); err != nil {
		release()
		return nil, err
	}
	return st, nil
}

func (es *EventStream) closed() bool {
	select {
	case <-es.done:
		return true
	default:
		return false
	}
}

// run writes the stream until it ends, then unsubscribes and gives its
// place under the caps back.
func (es *EventStream) run(r *http.Request, st *stream) {
	es.streams.Add(1)
	defer es.streams.Add(-1)
	defer st.release()
	es.p.accepted(r, "stream", true)
	why := st.write(r.Context())
	lost := st.q.end()
	st.unsubscribe()
	if es.p.debug {
		es.p.log.Debug("bridge: event stream ended", "peer", st.peer, "why", why, "events_lost", lost)
	}
}

// slowClient counts and logs a client closed as slow.
func (es *EventStream) slowClient(st *stream, queued int64) {
	es.slow.Add(1)
	if ok, held := es.slowLog.Allow(); ok {
		es.p.log.Warn("bridge: slow event stream client closed", "peer", st.peer,
			"queued_bytes", queued, "max_events", es.maxEvents, "max_bytes", es.maxBytes, "closed_since_last_log", held)
	}
}

// EventStreamStats are an event stream service's counters.
type EventStreamStats struct {
	Open       int64  // streams open now
	Delivered  uint64 // events written to clients
	SlowClosed uint64 // clients closed because their queue was full
	Refused    uint64 // streams refused over max_streams or max_streams_per_ip
}

// StreamStats returns the service's stream counters.
func (es *EventStream) StreamStats() EventStreamStats {
	return EventStreamStats{Open: es.streams.Load(), Delivered: es.delivered.Load(), SlowClosed: es.slow.Load(),
		Refused: es.limit.refused.Load()}
}

// frameCache holds the encoding of the last event dispatched: every
// stream's handler gets the same *client.Event for one EVENT (the
// session's dispatch goroutine calls them in turn), so it is encoded once.
type frameCache struct {
	mu    sync.Mutex
	ev    *client.Event
	frame []byte // nil when ev could not be encoded
}

// of returns ev's frame, encoding it if it is not the cached one.
func (c *frameCache) of(ev *client.Event, log *slog.Logger) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ev != ev {
		c.ev, c.frame = ev, eventFrame(ev, log)
	}
	return c.frame
}

// eventFrame encodes ev as an SSE event; nil (logged) when its payload
// has a value JSON cannot hold (a NaN from a MessagePack publisher) or is
// a passthru payload.
func eventFrame(ev *client.Event, log *slog.Logger) []byte {
	if ev.Passthru != nil {
		log.Warn("bridge: event not sent to event streams: its payload is in passthru mode (opaque bytes, no arguments)", "topic", ev.Topic, "publication", ev.Publication)
		return nil
	}
	b, err := appendEvent(nil, strconv.FormatUint(uint64(ev.Publication), 10), string(ev.Topic), payloadBody{ev.Args, ev.Kwargs})
	if err != nil {
		log.Warn("bridge: event not sent to event streams: its payload is not JSON", "topic", ev.Topic, "publication", ev.Publication, "err", err)
		return nil
	}
	return b
}

// stream is one client's event stream.
type stream struct {
	es   *EventStream
	w    http.ResponseWriter
	rc   *http.ResponseController
	cs   *client.Session
	q    *streamQueue
	subs []*client.Subscription
	peer string
	// release gives the stream's place under the caps back.
	release func()
}

// subscribe subscribes to each topic, in order; on an error it
// unsubscribes what it had subscribed.
func (st *stream) subscribe(ctx context.Context, sq *streamQuery) error {
	opts := sq.options()
	for _, topic := range sq.topics {
		sub, err := st.cs.Subscribe(ctx, topic, st.deliver, opts)
		if err != nil {
			st.unsubscribe()
			return subscribeError(ctx, err)
		}
		st.subs = append(st.subs, sub)
	}
	return nil
}

// deliver queues an event; it runs on the session's dispatch goroutine
// and never blocks.
func (st *stream) deliver(ev *client.Event) {
	frame := st.es.frames.of(ev, st.es.p.log)
	if frame == nil {
		return
	}
	if ok, queued := st.q.push(frame); !ok {
		st.es.slowClient(st, queued)
	}
}

// unsubscribe removes the stream's subscriptions (the router's goes with
// the last stream on it), unless the session is gone.
func (st *stream) unsubscribe() {
	if len(st.subs) == 0 || st.cs.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), unsubscribeTimeout)
	defer cancel()
	for _, sub := range st.subs {
		if err := sub.Unsubscribe(ctx); err != nil && st.cs.Err() == nil {
			st.es.p.log.Warn("bridge: event stream unsubscribe failed", "topic", sub.Topic(), "err", err)
		}
	}
}

// write opens the answer and writes the queued events as they come, and
// heartbeats while none do, until the client goes, a write fails, the
// client is closed as slow, the session ends or the service shuts down.
// It returns why the stream ended.
func (st *stream) write(ctx context.Context) string {
	startEvents(st.w, st.rc)
	var beat <-chan time.Time
	var hb *time.Timer
	if st.es.heartbeat > 0 {
		hb = time.NewTimer(st.es.heartbeat)
		defer hb.Stop()
		beat = hb.C
	}
	for {
		var err error
		select {
		case <-st.q.ready:
			frames := st.q.take()
			if err = st.writeFrames(frames); err == nil {
				st.es.delivered.Add(uint64(len(frames)))
			}
		case <-beat:
			err = st.writeFrames([][]byte{heartbeatFrame})
		case <-st.q.slow:
			return "slow client"
		case <-ctx.Done():
			return "client gone"
		case <-st.cs.Done():
			return "session ended"
		case <-st.es.done:
			return "shutdown"
		}
		if err != nil {
			return "write failed: " + err.Error()
		}
		if hb != nil {
			hb.Reset(st.es.heartbeat)
		}
	}
}

// writeFrames writes frames and flushes them to the client.
func (st *stream) writeFrames(frames [][]byte) error {
	if !st.q.arm(streamWriteTimeout) {
		return errSlow
	}
	for _, f := range frames {
		if _, err := st.w.Write(f); err != nil {
			return err
		}
	}
	return st.rc.Flush()
}

// subscribeError classifies an error of a SUBSCRIBE as wampError does.
func subscribeError(ctx context.Context, err error) error {
	if _, ok := err.(*wamp.RequestError); ok {
		return err
	}
	if ctx.Err() != nil {
		return errors.Join(errClientGone, err)
	}
	return errors.Join(ErrUnavailable, err)
}

// errSlow ends a stream whose client was found slow.
var errSlow = errors.New("bridge: slow client")
