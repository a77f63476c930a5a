package client

import (
	"context"

	"github.com/junction-wamp/junction/wamp"
)

// request is one request awaiting the router's reply.
type request struct {
	id    wamp.ID
	reply chan wamp.Message // capacity 1: the final reply, sent once by the reader; nil if the session ended first
	// progress receives progressive RESULTs; nil unless the call asked.
	progress *mailbox[*wamp.Result]
	// onReply, when set, runs on the reader with the final reply before the
	// waiter sees it (so that a REGISTERED is in place before the next
	// INVOCATION); abandoned says the waiter has given up.
	onReply   func(m wamp.Message, abandoned bool)
	abandoned bool // s.mu must be held
	// opts are a call's options (newCallRequest), kept here so that a
	// reused request carries them without an allocation of their own;
	// only the caller's goroutine reads them.
	opts callOptions
}

// newRequest registers a request under a fresh ID, or returns the session's
// error once it has ended.
func (s *Session) newRequest(onReply func(wamp.Message, bool)) (*request, error) {
	r, _ := s.calls.Get().(*request)
	if r == nil || onReply != nil {
		r = &request{reply: make(chan wamp.Message, 1), onReply: onReply}
	}
	r.id = s.ids.Next()
	if err := s.pend(r); err != nil {
		return nil, err
	}
	return r, nil
}

// newCallRequest registers the request of a call with options opts, or
// returns the session's error once it has ended.
func (s *Session) newCallRequest(opts []CallOption) (*request, error) {
	r, _ := s.calls.Get().(*request)
	if r == nil {
		r = &request{reply: make(chan wamp.Message, 1)}
	}
	for _, opt := range opts {
		opt(&r.opts)
	}
	r.id = s.ids.Next()
	if r.opts.progress != nil {
		r.progress = newMailbox[*wamp.Result](0) // not recycled
	}
	if err := s.pend(r); err != nil {
		return nil, err
	}
	return r, nil
}

// recycle keeps r, a plain request (no progress, no onReply) whose reply
// its waiter has received, for a later newRequest: the reader sends a
// reply once, after r left the pending requests, so nothing else is sent
// on r.reply.
func (s *Session) recycle(r *request) {
	if r.progress == nil && r.onReply == nil {
		r.opts = callOptions{}
		s.calls.Put(r)
	}
}

// pend registers r under its ID, or returns the session's error once it
// has ended.
func (s *Session) pend(r *request) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.pending[r.id] = r
	return nil
}

// forget removes r from the pending requests. A reply arriving later is
// dropped, or given to r.onReply as abandoned.
func (s *Session) forget(r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.onReply != nil {
		r.abandoned = true
		return
	}
	delete(s.pending, r.id)
}

// reply hands the final reply m to the request id; it runs on the reader.
func (s *Session) reply(id wamp.ID, m wamp.Message) {
	s.mu.Lock()
	r := s.pending[id]
	delete(s.pending, id)
	abandoned := r != nil && r.abandoned
	s.mu.Unlock()
	if r == nil {
		s.log.Debug("client: reply to no pending request", "type", m.Type(), "request", id)
		return
	}
	if r.onReply != nil {
		r.onReply(m, abandoned)
	}
	r.reply <- m
}

// endErr returns the session's error once it has ended.
func (s *Session) endErr() error {
	if err := s.Err(); err != nil {
		return err
	}
	return ErrClosed
}

// roundTrip sends the message built for a new request and waits for the
// final reply, ctx or the session's end. After ctx ends the reply is still
// given to onReply (as abandoned).
func (s *Session) roundTrip(ctx context.Context, build func(wamp.ID) wamp.Message,
	onReply func(wamp.Message, bool)) (wamp.Message, error) {
	r, err := s.newRequest(onReply)
	if err != nil {
		return nil, err
	}
	if err := s.peer.Send(build(r.id)); err != nil {
		s.forget(r)
		return nil, err
	}
	select {
	case m := <-r.reply:
		return s.replyOrErr(m)
	case <-ctx.Done():
		s.forget(r)
		return nil, ctx.Err()
	case <-s.done:
		return s.replyOrEnd(r)
	}
}

// replyOrErr returns m, a request's reply, or the session's error when m
// is nil (the session ended first).
func (s *Session) replyOrErr(m wamp.Message) (wamp.Message, error) {
	if m == nil {
		return nil, s.endErr()
	}
	return m, nil
}

// replyOrEnd returns r's reply if it came just before the session ended,
// else the session's error.
func (s *Session) replyOrEnd(r *request) (wamp.Message, error) {
	select {
	case m := <-r.reply:
		return s.replyOrErr(m)
	default:
		return nil, s.endErr()
	}
}

// requestError turns an ERROR into the error a method returns.
// An undecodable payload leaves Args and Kwargs empty: the URI is what
// matters.
func requestError(e *wamp.Error) *wamp.RequestError {
	args, kwargs, _ := wamp.Values(e)
	return &wamp.RequestError{URI: e.Error, Details: e.Details, Args: args, Kwargs: kwargs,
		Passthru: wamp.PayloadOf(e).Passthru()}
}

// unexpected is the error for a reply of the wrong type.
func unexpected(m wamp.Message) error {
	return protocolError("unexpected %s in reply", m.Type())
}
