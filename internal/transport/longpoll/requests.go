package longpoll

import (
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// serveSend decodes the body (every message of it, so that a bad one
// delivers none) and hands the messages to the session: 204 once it has
// them, 400 for a body that does not decode, 404 if the transport closes
// first.
func (t *transport) serveSend(w http.ResponseWriter, r *http.Request) {
	t.begin()
	defer t.end()
	body, ok := t.h.readBody(w, r)
	if !ok {
		return
	}
	msgs, err := t.decode(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "could not unserialize WAMP message: "+err.Error())
		return
	}
	select {
	case t.in <- msgs:
		w.WriteHeader(http.StatusNoContent)
	case <-t.done:
		writeError(w, http.StatusNotFound, "no such transport")
	case <-r.Context().Done():
	}
}

// decode returns the messages of a send body: one, or with a batched
// protocol every message of the batch.
func (t *transport) decode(body []byte) ([]wamp.Message, error) {
	frames := [][]byte{body}
	if t.batched {
		var err error
		if frames, err = codec.SplitBatch(t.codec, body); err != nil {
			return nil, err
		}
	}
	msgs := make([]wamp.Message, 0, len(frames))
	for _, f := range frames {
		m, err := t.codec.Decode(f)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// serveReceive answers the queued messages (all of them with a batched
// protocol, else the first), or holds the request until there are some,
// RequestTimeout passes (then answers empty), or the client goes away. A
// new receive answers a held one empty. A closed transport with nothing
// left answers 404, and the handler forgets it.
func (t *transport) serveReceive(w http.ResponseWriter, r *http.Request) {
	t.begin()
	defer t.end()
	body, ok, gone := t.take()
	if f := beforeHold.Load(); f != nil {
		(*f)()
	}
	if !ok && !gone && !t.h.Stopping() {
		body, gone = t.hold(r)
	}
	if gone {
		t.h.remove(t)
		writeError(w, http.StatusNotFound, "no such transport")
		return
	}
	writeBody(w, t.ct, body)
}

// beforeHold, when set (by tests), runs between a receive's first take
// and its hold.
var beforeHold atomic.Pointer[func()]

// hold waits for messages; see serveReceive.
func (t *transport) hold(r *http.Request) ([]byte, bool) {
	t.mu.Lock()
	t.wakeLocked()
	if len(t.queue) > 0 || t.err != nil {
		// Queued (or closed) since serveReceive's take, before there was
		// a waiter to wake: answered now, not after RequestTimeout.
		t.mu.Unlock()
		body, _, gone := t.take()
		return body, gone
	}
	ch := make(chan struct{})
	t.waiter = ch
	t.mu.Unlock()
	var timeout <-chan time.Time
	if d := t.h.opts.RequestTimeout; d > 0 {
		tm := time.NewTimer(d)
		defer tm.Stop()
		timeout = tm.C
	}
	select {
	case <-ch:
	case <-timeout:
	case <-r.Context().Done():
	}
	t.mu.Lock()
	if t.waiter == ch {
		t.waiter = nil
	}
	t.mu.Unlock()
	body, _, gone := t.take()
	return body, gone
}

// take removes what a receive answers from the queue: ok when there was
// something; gone when the transport is closed and its queue empty.
func (t *transport) take() (body []byte, ok, gone bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case len(t.queue) == 0:
		return nil, false, t.err != nil
	case !t.batched:
		body = t.queue[0]
		t.queue[0] = nil
		t.queue = t.queue[1:]
	default:
		for _, b := range t.queue {
			body = append(body, b...)
		}
		clear(t.queue)
		t.queue = t.queue[:0]
	}
	t.bytes -= len(body)
	if len(t.queue) == 0 {
		t.queue = slices.Clip(t.queue[:0])
	}
	return body, true, false
}

// serveClose closes the transport and ends its session: 204.
func (t *transport) serveClose(w http.ResponseWriter) {
	t.h.opts.Logger.Debug("longpoll: transport closed by the client", "transport", t.id)
	t.closeWith(wamp.ErrClosed)
	t.h.remove(t)
	w.WriteHeader(http.StatusNoContent)
}
