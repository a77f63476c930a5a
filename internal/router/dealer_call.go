package router

import (
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/unsent"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// callOptions are the CALL options the dealer acts on.
type callOptions struct {
	timeout  time.Duration  // 0: none
	progress bool           // receive_progress
	disclose bool           // disclose_me, or the role's permission
	forward  forwardFor     // forward_for of a call from a router link
	as       *wamp.Identity // who the caller acts for (wamp.Acting); nil: itself
	passthru passthruForm   // the payload's passthru form
	ppt      wamp.Dict      // the options that hold its passthru options (nil: none)
}

// handleCall routes a call to the best-matching registration's callee, or
// to a router-internal procedure.
func (s *session) handleCall(m *wamp.Call) error { return s.handleCallAs(m, nil) }

// handleCallAs is handleCall for a call that acts for as (nil: s itself).
func (s *session) handleCallAs(m *wamp.Call, as *wamp.Identity) error {
	rm := s.realm
	if !rm.validURI(m.Procedure, wamp.MatchExact) {
		return wamp.Errorf(wamp.ErrInvalidURI, "invalid procedure %q", m.Procedure)
	}
	perm, err := s.authorizeAs(as, auth.ActionCall, m.Procedure, m.Options)
	if err != nil {
		return err
	}
	if fn := rm.internal(m.Procedure); fn != nil {
		return s.callInternal(fn, m)
	}
	opts, err := parseCallOptions(m.Options, perm)
	if err != nil {
		return err
	}
	opts.as = as
	if opts.passthru, err = s.checkPassthruFrom(pptCaller, m.Options, wamp.PayloadOf(m)); err != nil {
		return err
	}
	if opts.passthru != noPassthru {
		opts.ppt = m.Options
	}
	c, inv, announced, err := rm.dealer.call(s, m, opts)
	if err != nil && rm.fabric != nil {
		c, inv, announced, err = rm.callAfterSync(s, m, opts, err)
	}
	if err != nil {
		return err
	}
	<-announced
	s.sendInvocation(c, inv)
	if opts.timeout > 0 {
		rm.dealer.startTimer(c, opts.timeout)
	}
	return nil
}

// sendInvocation sends c's INVOCATION to its callee; one the callee's
// peer refuses (too long, or not encodable) ends the call
// (invocationRefused). A caller whose peer
// cannot tell whether more of its messages wait (tellsBursts: an
// in-process session, such as the HTTP Caller's, whose many requests each
// hand over one CALL) is taken to be in a burst while it has other calls
// in flight: the INVOCATIONs of concurrent calls then go out in batches,
// one write for several, and the callee reads them so, while a lone call
// is still written at once. s's goroutine only.
func (s *session) sendInvocation(c *call, inv *wamp.Invocation) {
	if c.concurrent && !tellsBursts(s.peer) {
		s.burst.Store(true)
		defer s.burst.Store(false)
	}
	if err := c.callee.sendFrom(s, inv, wamp.TypeInvocation); unsent.Refused(err) {
		s.realm.dealer.invocationRefused(c, err)
	}
}

// tellsBursts reports whether p can tell that more of its client's
// messages wait (wamp.Parker.Buffered): a socket's peer can, from what
// its reader has read ahead; an in-process peer ("local") cannot, its
// client's messages each come from one of its goroutines.
func tellsBursts(p wamp.Peer) bool {
	_, parks := p.(wamp.Parker)
	return parks && p.Info().Transport != "local"
}

func parseCallOptions(o wamp.Dict, perm auth.Permission) (callOptions, error) {
	var opts callOptions
	ms, err := optInt(o, wamp.OptTimeout)
	if err != nil {
		return opts, err
	}
	if ms > 0 {
		opts.timeout = time.Duration(min(ms, int64(time.Duration(1<<62)/time.Millisecond))) * time.Millisecond
	}
	if opts.progress, err = optBool(o, wamp.OptReceiveProgress, false); err != nil {
		return opts, err
	}
	if opts.forward, err = optForwardFor(o); err != nil {
		return opts, err
	}
	me, err := optBool(o, wamp.OptDiscloseMe, false)
	opts.disclose = me || perm.Disclose
	return opts, err
}

// call records a call in flight and returns the INVOCATION for its callee,
// to send once announced is closed. A session at its limit of calls in
// flight, or in a realm at its own, gets a limitError. A call to a wamp.* procedure never goes to a
// callee that is not trusted (handleRegister refuses such registrations;
// this is the second line).
func (d *dealer) call(s *session, m *wamp.Call, opts callOptions) (*call, *wamp.Invocation, chan struct{}, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s.calls.m[m.Request] != nil {
		return nil, nil, nil, violation("CALL request ID %d is already in flight", m.Request)
	}
	if err := d.realm.limits.now().calls.admit(s, len(s.calls.m), d.inFlight, 1, 1); err != nil {
		return nil, nil, nil, err
	}
	_, _, reg, ok := d.index.Best(string(m.Procedure))
	if !ok {
		return nil, nil, nil, noSuchProcedure(m.Procedure)
	}
	picked := reg.pick()
	to := picked.s
	if restricted(m.Procedure) && !to.trusted() {
		return nil, nil, nil, noSuchProcedure(m.Procedure)
	}
	if opts.passthru == pptPassthru && to.ppt&pptCallee == 0 && remoteOf(to) == nil {
		return nil, nil, nil, errPPTCallee(m.Procedure)
	}
	c := &call{caller: s, request: m.Request, callee: to, invocation: to.invIDs.Next(), progress: opts.progress,
		concurrent: len(s.calls.m) > 0, start: since()}
	s.calls.put(c.request, c)
	to.invs.put(c.invocation, c)
	d.inFlight++
	inv := &wamp.Invocation{Request: c.invocation, Registration: reg.id,
		Details: invocationDetails(s, m.Procedure, reg.match, opts), Args: m.Args, Kwargs: m.Kwargs, Raw: m.Raw}
	return c, inv, picked.announced, nil
}

func noSuchProcedure(proc wamp.URI) error {
	return wamp.Errorf(wamp.ErrNoSuchProcedure, "no callee registered for procedure %q", proc)
}

// invocationDetails are INVOCATION.Details: the procedure for pattern
// registrations, receive_progress, the timeout, the caller if disclosed,
// and the payload's passthru options.
func invocationDetails(caller *session, proc wamp.URI, m uriindex.Match, opts callOptions) wamp.Dict {
	d := wamp.Dict{}
	if m != uriindex.Exact {
		d[wamp.OptProcedure] = string(proc)
	}
	if opts.progress {
		d[wamp.OptReceiveProgress] = true
	}
	if opts.timeout > 0 {
		d[wamp.OptTimeout] = uint64(opts.timeout / time.Millisecond)
	}
	if opts.disclose {
		opts.forward.disclose(d, caller, opts.as, callerKeys)
	}
	copyPassthru(d, opts.ppt)
	return d
}

// callInternal serves a call to a router-internal procedure. A result
// the caller's peer refuses is answered with an ERROR (refused.go).
func (s *session) callInternal(fn internalProc, m *wamp.Call) error {
	args, kwargs, err := fn(s, m)
	if err != nil {
		return err
	}
	err = s.send(&wamp.Result{Request: m.Request, Details: wamp.Dict{}, Args: args, Kwargs: wamp.ObjectOf(kwargs)})
	if unsent.Refused(err) {
		s.send(unsent.Error(wamp.TypeCall, m.Request, err, "caller"))
	}
	return nil
}
