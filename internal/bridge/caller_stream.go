package bridge

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/junction-wamp/junction/client"
)

// Event names of a call answered as an event stream.
const (
	eventProgress = "progress" // one per progressive result: {"args", "kwargs"}
	eventResult   = "result"   // the final result, in the shape of a plain answer
	eventError    = "error"    // the call's error: {"error", "args", "kwargs"}, as a plain answer's
)

// stream performs a call for a client that accepts text/event-stream: the
// answer is a 200 event stream with one "progress" event per progressive
// result (receive_progress is asked), then the final "result" or "error"
// event, then its end; while no event comes, heartbeat comments, as an
// event stream's. The call runs for the request's identity, as a plain
// one. A client that goes away cancels the call (the request's context,
// in the Caller's cancel mode), and so does a write that fails or does
// not finish within streamWriteTimeout.
func (c *Caller) stream(w http.ResponseWriter, r *http.Request, req *request, cr *callRequest,
	timeout time.Duration, opts []client.CallOption) error {
	release, err := c.streams.take(r)
	if err != nil {
		return err
	}
	defer release()
	ctx, cancel := context.WithCancel(req.context(r))
	defer cancel()
	cs := &callStream{w: w, rc: http.NewResponseController(w), cancel: cancel, log: c.p.log, heartbeat: c.heartbeat}
	cs.start()
	defer cs.stop()
	c.p.accepted(r, "procedure", cr.procedure, "stream", true)
	opts = append(slices.Clip(opts), client.WithProgress(cs.progress))
	res, err := c.s.Call(ctx, cr.procedure, cr.args, cr.kwargs, opts...)
	if err != nil {
		a := answerFor(wampError(r, timeout, err), &c.p.remote)
		if !cs.ended() {
			c.p.logDecision(r, a, err)
		}
		if a != nil {
			cs.write(eventError, a.body.filled())
		}
		return nil
	}
	rb := resultOf(res)
	cs.write(eventResult, &rb)
	return nil
}

// callStream writes a call's events, and heartbeats while none come.
// The request's goroutine writes the events (progress callbacks run on
// it), the heartbeat timer's the heartbeats: mu keeps their writes
// apart, and none is made once the stream is over.
type callStream struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	cancel    context.CancelFunc // cancels the call
	log       *slog.Logger
	heartbeat time.Duration // 0: none

	mu     sync.Mutex  // guards the fields below and the writes
	beat   *time.Timer // nil without heartbeats
	buf    []byte
	failed bool // a write failed or the stream was ended: the call is canceled, nothing more is written
	over   bool // the handler is done with the answer: nothing more is written
}

// start writes the answer's head and arms the heartbeat.
func (cs *callStream) start() {
	startEvents(cs.w, cs.rc)
	if cs.heartbeat > 0 {
		cs.mu.Lock() // the first beat may come before beat is set
		cs.beat = time.AfterFunc(cs.heartbeat, cs.beatOnce)
		cs.mu.Unlock()
	}
}

// stop ends the writes: a heartbeat due later writes nothing.
func (cs *callStream) stop() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.over = true
	if cs.beat != nil {
		cs.beat.Stop()
	}
}

// ended reports whether the stream was ended by a failed write.
func (cs *callStream) ended() bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.failed
}

// beatOnce writes a heartbeat comment; it runs on the timer's goroutine.
func (cs *callStream) beatOnce() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.failed || cs.over {
		return
	}
	cs.send(heartbeatFrame)
}

// progress writes one progressive result.
func (cs *callStream) progress(res *client.Result) {
	cs.write(eventProgress, payloadBody{res.Args, res.Kwargs})
}

// write writes one event and flushes it; a failure cancels the call. A
// result with a value JSON cannot hold (a NaN from a callee) ends the
// stream with the error a plain answer would have had (500's), and
// cancels the call too.
func (cs *callStream) write(name string, data jsonAnswer) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.failed || cs.over {
		return
	}
	b, err := appendEvent(cs.buf[:0], "", name, data)
	if err != nil {
		cs.log.Error("bridge: answer is not JSON", "err", err)
		b, _ = appendEvent(cs.buf[:0], "", eventError, (&errorBody{Error: textInternal}).filled())
		cs.end()
	}
	cs.buf = b
	cs.send(b)
}

// send writes b and flushes it, then arms the next heartbeat; a failure
// ends the stream. cs.mu must be held.
func (cs *callStream) send(b []byte) {
	_ = cs.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	if _, err := cs.w.Write(b); err != nil || cs.rc.Flush() != nil {
		cs.end()
		return
	}
	if cs.beat != nil {
		cs.beat.Reset(cs.heartbeat)
	}
}

// end writes nothing more and cancels the call. cs.mu must be held.
func (cs *callStream) end() {
	cs.failed = true
	cs.cancel()
}

// acceptsEventStream reports whether an Accept header of h lists
// text/event-stream (case-insensitive, parameters allowed) with a q
// other than 0.
func acceptsEventStream(h http.Header) bool {
	for _, v := range h["Accept"] {
		for item := range strings.SplitSeq(v, ",") {
			typ, params, _ := strings.Cut(item, ";")
			if strings.EqualFold(strings.TrimSpace(typ), "text/event-stream") && !qZero(params) {
				return true
			}
		}
	}
	return false
}

// qZero reports whether media type parameters say q=0 (0, 0.0, 0.000).
func qZero(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		name, value, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(name), "q") {
			value = strings.TrimSpace(value)
			return strings.Trim(value, "0.") == "" && strings.HasPrefix(value, "0")
		}
	}
	return false
}
