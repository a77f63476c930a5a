package client

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/junction-wamp/junction/wamp"
)

// Session is a joined WAMP session. It ends when the router says GOODBYE or
// ABORT, when the connection breaks, or on Leave or Close; every request
// still waiting then returns an error. Safe for concurrent use.
type Session struct {
	peer    wamp.Peer
	id      wamp.ID
	details wamp.Dict
	cfg     Config
	log     *slog.Logger
	ids     wamp.IDGen

	ctx    context.Context // canceled when the session ends; parent of invocation contexts
	cancel context.CancelFunc
	done   chan struct{} // closed when the session ends
	events *mailbox[delivery]
	// invokers hands an invocation to an idle invoker goroutine.
	invokers chan invocation

	mu      sync.Mutex           // guards the fields below; never held while calling out
	pending map[wamp.ID]*request // requests awaiting their reply, by request ID
	regs    map[wamp.ID]*Registration
	subs    map[wamp.ID]*subscription
	running map[wamp.ID]*running // invocations in progress, by INVOCATION request ID
	err     error                // why the session ended; nil while it runs
	leaving bool                 // Leave sent GOODBYE

	// calls keeps, for reuse by Call, the requests of calls that had
	// their reply (*request, its reply channel empty), and timers the
	// stopped wait limits (*time.Timer). Per session, not shared: channels
	// and timers made in a testing/synctest bubble stay in it.
	calls, timers sync.Pool
}

func newSession(p wamp.Peer, cfg Config, w *wamp.Welcome) *Session {
	s := &Session{
		peer:     p,
		id:       w.Session,
		details:  w.Details,
		cfg:      cfg,
		done:     make(chan struct{}),
		events:   newMailbox[delivery](cfg.eventQueue()),
		invokers: make(chan invocation),
		pending:  make(map[wamp.ID]*request),
		regs:     make(map[wamp.ID]*Registration),
		subs:     make(map[wamp.ID]*subscription),
		running:  make(map[wamp.ID]*running),
	}
	s.log = cfg.logger().With("realm", cfg.Realm, "session", w.Session)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

func (s *Session) start() {
	go s.read()
	go s.dispatchEvents()
}

// ID returns the session ID the router assigned.
func (s *Session) ID() wamp.ID { return s.id }

// Details returns WELCOME.Details (authid, authrole, roles, ...). The caller
// must not modify it.
func (s *Session) Details() wamp.Dict { return s.details }

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err returns nil while the session runs, then why it ended: ErrClosed after
// Leave or Close, an error wrapping a *wamp.RequestError when the router
// said GOODBYE or ABORT, ErrSlowConsumer, or the connection's error.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the session at once, without GOODBYE, and closes the peer.
func (s *Session) Close() error {
	s.end(ErrClosed)
	return nil
}

// end ends the session with err (the first cause wins): it releases every
// waiter, cancels running invocations and closes the peer.
func (s *Session) end(err error) {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return
	}
	s.err = err
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()
	s.log.Debug("client: session ended", "err", err)
	s.cancel()
	close(s.done)
	for _, r := range pending {
		r.reply <- nil // never blocks: no reply was sent to a pending request
	}
	s.peer.Close()
}

// abort ends the session because the router broke the protocol.
func (s *Session) abort(e *wamp.RequestError) {
	s.log.Warn("client: protocol violation by the router", "err", e)
	sendAbort(s.peer, e)
	s.end(fmt.Errorf("client: %w", e))
}

// read is the session's reader goroutine.
func (s *Session) read() {
	for {
		m, err := s.peer.Recv()
		if err != nil {
			s.end(fmt.Errorf("client: connection lost: %w", err))
			return
		}
		if e := s.handle(wamp.Unwrap(m)); e != nil {
			s.abort(e)
			return
		}
	}
}

// handle routes one message from the router; it runs on the reader.
func (s *Session) handle(m wamp.Message) *wamp.RequestError {
	switch m := m.(type) {
	case *wamp.Event:
		return s.handleEvent(m, nil)
	case *wamp.Addressed:
		return s.handleEvent(m.Event, m.Audience)
	case *wamp.Result:
		return s.handleResult(m)
	case *wamp.Invocation:
		s.handleInvocation(m)
	case *wamp.Interrupt:
		s.handleInterrupt(m)
	case *wamp.Error:
		s.reply(m.Request, m)
	case *wamp.Published:
		s.reply(m.Request, m)
	case *wamp.Registered:
		s.reply(m.Request, m)
	case *wamp.Subscribed:
		s.reply(m.Request, m)
	case *wamp.Unregistered:
		s.handleUnregistered(m)
	case *wamp.Unsubscribed:
		s.handleUnsubscribed(m)
	case *wamp.Goodbye:
		s.handleGoodbye(m)
	case *wamp.Abort:
		s.end(fmt.Errorf("client: router aborted the session: %w", abortError(m)))
	default:
		return protocolError("unexpected %s in an established session", m.Type())
	}
	return nil
}

// handleGoodbye answers the router's GOODBYE, or completes Leave's.
func (s *Session) handleGoodbye(m *wamp.Goodbye) {
	s.mu.Lock()
	leaving := s.leaving
	s.mu.Unlock()
	if leaving {
		s.end(ErrClosed)
		return
	}
	_ = s.peer.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrGoodbyeAndOut})
	s.end(fmt.Errorf("client: router ended the session: %w", closeError(m.Reason, m.Details)))
}

// Leave says GOODBYE, waits for the router's GOODBYE (bounded by ctx) and
// closes the peer. The session has ended when Leave returns, whatever the
// error.
func (s *Session) Leave(ctx context.Context) error {
	s.mu.Lock()
	err := s.err
	s.leaving = true
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if err := s.peer.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseRealm}); err != nil {
		s.end(ErrClosed)
		return fmt.Errorf("client: leave: %w", err)
	}
	select {
	case <-s.done:
		if err := s.Err(); err != ErrClosed {
			return err
		}
		return nil
	case <-ctx.Done():
		s.end(ErrClosed)
		return fmt.Errorf("client: leave: %w", ctx.Err())
	}
}
