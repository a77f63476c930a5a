package loginguard

import (
	"errors"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// Challenger sends a login attempt's CHALLENGE, after wait (the
// throttle's delay), and verifies the client's AUTHENTICATE. asked
// reports whether the CHALLENGE was sent: an attempt that ended before
// got none, and is no failure.
type Challenger func(ch auth.Challenge, wait time.Duration) (id *auth.Identity, asked bool, err error)

// Identify runs a's authentication of req, as a login attempt counted
// against k: a static challenge, or anything a dynamic authenticator does
// (it may refuse at once, in Start), is one, which th admits and counts;
// an authenticator that admits at once without asking anyone (anonymous,
// static) is not. ask runs the CHALLENGE, if there is one.
func (th *Throttle) Identify(k Key, a auth.Authenticator, req *auth.Request, ask Challenger) (*auth.Identity, error) {
	if auth.IsDynamic(a) {
		return th.login(k, ask, func() (*auth.Identity, auth.Challenge, error) { return a.Start(req) })
	}
	id, ch, err := a.Start(req)
	if err != nil || ch == nil {
		return id, err
	}
	return th.login(k, ask, func() (*auth.Identity, auth.Challenge, error) { return nil, ch, nil })
}

// login runs a login attempt held back by th, and tells th how it went.
// begin starts it: it may refuse at once (a dynamic authenticator's
// refusal), admit at once (a dynamic anonymous login), or give the
// challenge to run. A refusal, and a CHALLENGE that went out and got no
// valid AUTHENTICATE, count as a failed attempt, whatever ended it (a
// wrong answer, the client gone, the join timeout, a protocol violation):
// otherwise a client could sample CHALLENGEs unthrottled by never
// answering them. A dynamic authenticator that could not be asked
// (auth.ErrUnavailable) is no failure of the client's.
func (th *Throttle) login(k Key, ask Challenger, begin func() (*auth.Identity, auth.Challenge, error)) (*auth.Identity, error) {
	wait, ok := th.Admit(k, time.Now())
	if !ok {
		return nil, wamp.Errorf(ErrThrottledURI, "too many failed or pending logins from this address: try again later")
	}
	defer func() { th.Done(k, time.Now()) }()
	id, ch, err := begin()
	tried := err != nil
	if err == nil && ch != nil {
		id, tried, err = ask(ch, wait)
	}
	switch {
	case err == nil && id != nil:
		th.Succeeded(k)
	case tried && !errors.Is(err, auth.ErrUnavailable):
		th.Failed(k, time.Now()) // before Done: no attempt slips in between
	}
	return id, err
}
