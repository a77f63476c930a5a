package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// InvocationHandler runs one invocation of a registered procedure, on a
// goroutine that runs no other handler meanwhile (but may have run earlier
// ones: a handler must not leave per-goroutine state behind, such as a
// runtime.LockOSThread without its unlock). ctx is canceled when the router sends INTERRUPT (the
// caller canceled or timed out) or when the session ends. A returned
// *wamp.RequestError is sent as is; any other error is sent as
// wamp.error.runtime_error with the error's text as argument. A result
// longer than the router accepts (over RawSocket, the maximum message
// length it announced) is sent as ERROR wamp.error.payload_size_exceeded
// instead, one holding a value the serializer cannot encode (NaN in JSON)
// as ERROR wamp.error.invalid_argument, and such an error with its URI
// alone.
type InvocationHandler func(ctx context.Context, inv *Invocation) (*Result, error)

// Invocation is one call of a registered procedure.
type Invocation struct {
	Args      wamp.List   // positional arguments; nil for none
	Kwargs    wamp.Object // keyword arguments, in received order; nil for none
	Details   wamp.Dict   // INVOCATION.Details (caller, procedure, receive_progress, ...)
	Procedure wamp.URI    // details.procedure for a pattern registration, else the registered URI
	// Passthru is an argument payload in passthru mode (payload
	// transparency, Crossbar's form): opaque bytes in place of Args and
	// Kwargs, which are then nil, described by Details' enc_algo,
	// enc_key and enc_serializer. See Session.CallPassthru.
	Passthru []byte

	s               *Session
	request         wamp.ID
	receiveProgress bool
}

// SendProgress sends r as a progressive result. It returns
// ErrProgressNotRequested unless the caller asked for progressive results.
// Call it only while the handler runs.
func (inv *Invocation) SendProgress(r *Result) error {
	if !inv.receiveProgress {
		return ErrProgressNotRequested
	}
	return inv.s.peer.Send(yieldOf(inv.request, r, wamp.Dict{wamp.OptProgress: true}))
}

// Registration is a procedure registered by a Session, or remembered by a
// Client (which registers it again after every reconnect).
type Registration struct {
	procedure wamp.URI
	handler   InvocationHandler
	options   wamp.Dict

	s  *Session // owner for a session registration
	id wamp.ID

	c *Client // owner for a client registration
}

// Procedure returns the registered URI (or pattern).
func (r *Registration) Procedure() wamp.URI { return r.procedure }

// ID returns the router's registration ID; for a Client's registration, the
// ID in the current session (0 while disconnected).
func (r *Registration) ID() wamp.ID {
	if r.c != nil {
		return r.c.registrationID(r)
	}
	return r.id
}

// Unregister removes the registration. Invocations already running go on.
func (r *Registration) Unregister(ctx context.Context) error {
	if r.c != nil {
		return r.c.unregister(ctx, r)
	}
	return r.s.unregister(ctx, r)
}

// running is an invocation in progress. s.mu guards interrupted.
type running struct {
	cancel      context.CancelFunc
	interrupted bool
}

// started is an invocation's running state and what its handler gets, in
// one allocation: the handler may keep its *Invocation, which then keeps
// the few bytes of running with it.
type started struct {
	run running
	inv Invocation
}

// Register registers procedure with handler h. opts are the REGISTER
// options (match, invoke, ...); nil for none.
func (s *Session) Register(ctx context.Context, procedure wamp.URI, h InvocationHandler, opts wamp.Dict) (*Registration, error) {
	if h == nil {
		return nil, fmt.Errorf("client: register %s: %w", procedure, errNilHandler)
	}
	reg := &Registration{procedure: procedure, handler: h, options: opts, s: s}
	m, err := s.roundTrip(ctx, func(id wamp.ID) wamp.Message {
		return &wamp.Register{Request: id, Options: opts, Procedure: procedure}
	}, func(m wamp.Message, abandoned bool) { s.registered(reg, m, abandoned) })
	if err != nil {
		return nil, fmt.Errorf("client: register %s: %w", procedure, err)
	}
	switch m := m.(type) {
	case *wamp.Registered:
		return reg, nil
	case *wamp.Error:
		return nil, requestError(m)
	}
	return nil, unexpected(m)
}

// registered installs reg on REGISTERED, before the reader reads on; a
// registration whose Register gave up is unregistered at once.
func (s *Session) registered(reg *Registration, m wamp.Message, abandoned bool) {
	ok, isReg := m.(*wamp.Registered)
	if !isReg {
		return
	}
	if abandoned {
		_ = s.peer.Send(&wamp.Unregister{Request: s.ids.Next(), Registration: ok.Registration})
		return
	}
	s.mu.Lock()
	reg.id = ok.Registration
	s.regs[reg.id] = reg
	s.mu.Unlock()
}

func (s *Session) unregister(ctx context.Context, reg *Registration) error {
	m, err := s.roundTrip(ctx, func(id wamp.ID) wamp.Message {
		return &wamp.Unregister{Request: id, Registration: reg.id}
	}, func(m wamp.Message, _ bool) {
		if _, refused := m.(*wamp.Error); !refused { // an UNREGISTER refused keeps the registration
			s.dropRegistration(reg.id)
		}
	})
	if err != nil {
		return fmt.Errorf("client: unregister %s: %w", reg.procedure, err)
	}
	switch m := m.(type) {
	case *wamp.Unregistered:
		return nil
	case *wamp.Error:
		return requestError(m)
	}
	return unexpected(m)
}

func (s *Session) dropRegistration(id wamp.ID) {
	s.mu.Lock()
	delete(s.regs, id)
	s.mu.Unlock()
}

// handleUnregistered completes Unregister, or takes note of the router
// revoking a registration (request 0).
func (s *Session) handleUnregistered(m *wamp.Unregistered) {
	if m.Request != 0 {
		s.reply(m.Request, m)
		return
	}
	id, _ := wamp.AsInt(m.Details["registration"])
	s.dropRegistration(wamp.ID(id))
	s.log.Warn("client: router revoked a registration", "registration", id, "reason", m.Details[wamp.OptReason])
}

// handleInvocation starts the handler of an INVOCATION; it runs on the reader.
func (s *Session) handleInvocation(m *wamp.Invocation) {
	p := wamp.PayloadOf(m)
	passthru := p.Passthru()
	args, kwargs, err := p.Values()
	if err != nil && passthru == nil {
		e := wamp.Errorf(wamp.ErrInvalidArgument, "undecodable arguments: %v", err)
		_ = s.peer.Send(wamp.ErrorFor(wamp.TypeInvocation, m.Request, e))
		return
	}
	s.mu.Lock()
	reg := s.regs[m.Registration]
	if reg == nil {
		s.mu.Unlock()
		e := wamp.Errorf(wamp.ErrNoSuchRegistration, "no registration %d", m.Registration)
		_ = s.peer.Send(wamp.ErrorFor(wamp.TypeInvocation, m.Request, e))
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	st := &started{run: running{cancel: cancel}, inv: Invocation{Args: args, Kwargs: kwargs, Details: m.Details,
		Procedure: reg.procedure, Passthru: passthru, s: s, request: m.Request}}
	run, inv := &st.run, &st.inv
	s.running[m.Request] = run
	s.mu.Unlock()
	if p, ok := m.Details[wamp.OptProcedure].(string); ok {
		inv.Procedure = wamp.URI(p)
	}
	inv.receiveProgress, _ = m.Details[wamp.OptReceiveProgress].(bool)
	s.dispatchInvocation(invocation{ctx: ctx, run: run, handler: reg.handler, inv: inv})
}

// invocation is one invocation handed to an invoker goroutine.
type invocation struct {
	ctx     context.Context
	run     *running
	handler InvocationHandler
	inv     *Invocation
}

// invokerLinger is how long an invoker goroutine waits for the next
// invocation before it exits.
const invokerLinger = time.Second

// dispatchInvocation runs j on an idle invoker goroutine, or on a new one
// when none is idle: every handler has a goroutine of its own, so a slow
// one never holds up the others.
//
// Invokers linger for the next invocation because a fresh goroutine starts
// on a 2 KiB stack and must copy it to a larger one while it encodes the
// YIELD; under load that copy cost a quarter of a callee's CPU.
func (s *Session) dispatchInvocation(j invocation) {
	select {
	case s.invokers <- j:
	default:
		go s.invoker(j)
	}
}

// invoker runs j, then the invocations dispatchInvocation hands it, until
// it has been idle for invokerLinger or the session has ended.
func (s *Session) invoker(j invocation) {
	idle := time.NewTimer(invokerLinger)
	defer idle.Stop()
	for {
		s.invoke(j.ctx, j.run, j.handler, j.inv)
		j = invocation{} // holds the finished invocation no longer
		idle.Reset(invokerLinger)
		select {
		case j = <-s.invokers:
		case <-idle.C:
			return
		case <-s.done:
			return
		}
	}
}

// invoke runs one handler and sends its YIELD or ERROR.
func (s *Session) invoke(ctx context.Context, run *running, h InvocationHandler, inv *Invocation) {
	res, err := callHandler(ctx, h, inv)
	s.mu.Lock()
	delete(s.running, inv.request)
	interrupted := run.interrupted
	s.mu.Unlock()
	run.cancel()
	if err != nil {
		s.sendAnswer(inv.request, wamp.ErrorFor(wamp.TypeInvocation, inv.request, handlerError(err, interrupted)))
		return
	}
	if res == nil {
		res = &Result{}
	}
	// Options nil: written as {} (wamp.Writer); a router reads them only.
	s.sendAnswer(inv.request, yieldOf(inv.request, res, nil))
}

// sendAnswer sends the YIELD or ERROR m answering INVOCATION req. One
// the peer refuses is not sent: longer than the router accepts (the
// maximum message length it announced over RawSocket), or holding a value
// the serializer cannot encode (NaN in JSON, a channel). The router gets
// for a YIELD an ERROR instead, wamp.error.payload_size_exceeded or
// wamp.error.invalid_argument, and for an ERROR its URI without its
// payload, so that the caller is answered rather than left waiting.
func (s *Session) sendAnswer(req wamp.ID, m wamp.Message) {
	err := s.peer.Send(m)
	uri := wamp.ErrPayloadSizeExceeded
	switch {
	case errors.Is(err, wamp.ErrUnencodable):
		uri = wamp.ErrInvalidArgument
	case !errors.Is(err, wamp.ErrMessageTooLong):
		return
	}
	e := wamp.ErrorFor(wamp.TypeInvocation, req, wamp.Errorf(uri, "%v", err))
	if prev, ok := m.(*wamp.Error); ok {
		e = &wamp.Error{RequestType: wamp.TypeInvocation, Request: req, Details: wamp.Dict{}, Error: prev.Error}
	}
	s.log.Warn("client: answer the router's peer refused: not sent", "invocation", uint64(req), "err", err)
	_ = s.peer.Send(e)
}

// callHandler runs h, turning a panic into an error.
func callHandler(ctx context.Context, h InvocationHandler, inv *Invocation) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			inv.s.log.Error("client: invocation handler panicked", "procedure", inv.Procedure, "panic", p)
			res, err = nil, fmt.Errorf("handler panicked: %v", p)
		}
	}()
	return h(ctx, inv)
}

// handlerError maps a handler's error to the ERROR sent to the router.
func handlerError(err error, interrupted bool) *wamp.RequestError {
	if e, ok := errors.AsType[*wamp.RequestError](err); ok {
		return e
	}
	if interrupted {
		return wamp.Errorf(wamp.ErrCanceled, "%v", err)
	}
	return wamp.Errorf(wamp.ErrRuntimeError, "%v", err)
}

// handleInterrupt cancels a running invocation's context.
func (s *Session) handleInterrupt(m *wamp.Interrupt) {
	s.mu.Lock()
	run := s.running[m.Request]
	if run != nil {
		run.interrupted = true
	}
	s.mu.Unlock()
	if run != nil {
		run.cancel()
	}
}
