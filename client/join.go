package client

import (
	"context"
	"fmt"

	"github.com/junction-wamp/junction/wamp"
)

// Agent is the HELLO.Details.agent sent unless Config.HelloDetails sets one.
const Agent = "junction-client"

// Join opens a session on p: HELLO, then CHALLENGE/AUTHENTICATE rounds, then
// WELCOME. A router's ABORT gives an error wrapping a *wamp.RequestError
// with the ABORT reason as URI. ctx bounds the handshake only. On failure p
// is closed; on success the session owns p.
func Join(ctx context.Context, p wamp.Peer, cfg Config) (*Session, error) {
	stop := context.AfterFunc(ctx, func() { p.Close() })
	w, err := handshake(p, &cfg)
	if !stop() {
		p.Close()
		return nil, fmt.Errorf("client: join %s: %w", cfg.Realm, ctx.Err())
	}
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("client: join %s: %w", cfg.Realm, err)
	}
	s := newSession(p, cfg, w)
	s.start()
	return s, nil
}

// handshake runs the opening exchange and returns the router's WELCOME.
func handshake(p wamp.Peer, cfg *Config) (*wamp.Welcome, error) {
	cfg.Auth = beginAuth(cfg)
	if err := p.Send(&wamp.Hello{Realm: cfg.Realm, Details: helloDetails(cfg)}); err != nil {
		return nil, err
	}
	for {
		m, err := p.Recv()
		if err != nil {
			return nil, err
		}
		switch m := wamp.Unwrap(m).(type) {
		case *wamp.Welcome:
			return m, checkWelcome(cfg, m)
		case *wamp.Abort:
			return nil, abortError(m)
		case *wamp.Challenge:
			if err := answerChallenge(p, cfg, m); err != nil {
				return nil, err
			}
		default:
			e := protocolError("unexpected %s during the opening handshake", m.Type())
			sendAbort(p, e)
			return nil, e
		}
	}
}

// joinAuth is an Authenticator with state for each join (a nonce): begin
// returns the one that answers a join's CHALLENGE.
type joinAuth interface {
	begin(authid string) Authenticator
}

// welcomeChecker is a join's Authenticator that checks the router's
// WELCOME (a proof that the router knows the credential).
type welcomeChecker interface {
	checkWelcome(w *wamp.Welcome) error
}

// beginAuth returns cfg.Auth for one join: a new slice, with the
// authenticators that keep state for a join begun.
func beginAuth(cfg *Config) []Authenticator {
	auths := make([]Authenticator, len(cfg.Auth))
	for i, a := range cfg.Auth {
		if j, ok := a.(joinAuth); ok {
			a = j.begin(cfg.AuthID)
		}
		auths[i] = a
	}
	return auths
}

// checkWelcome lets the authenticator of the WELCOME's authmethod check
// it. The session is open on the router by then: a failure closes the
// connection.
func checkWelcome(cfg *Config, w *wamp.Welcome) error {
	method, _ := w.Details[wamp.KeyAuthMethod].(string)
	for _, a := range cfg.Auth {
		if c, ok := a.(welcomeChecker); ok && a.Method() == method {
			return c.checkWelcome(w)
		}
	}
	return nil
}

// answerChallenge sends the AUTHENTICATE for ch, or an ABORT when no offered
// authenticator can answer it.
func answerChallenge(p wamp.Peer, cfg *Config, ch *wamp.Challenge) error {
	for _, a := range cfg.Auth {
		if a.Method() != ch.AuthMethod {
			continue
		}
		sig, extra, err := a.Respond(ch)
		if err != nil {
			sendAbort(p, wamp.Errorf(wamp.ErrAuthenticationFailed, "%v", err))
			return err
		}
		if extra == nil {
			extra = wamp.Dict{}
		}
		return p.Send(&wamp.Authenticate{Signature: sig, Extra: extra})
	}
	sendAbort(p, wamp.Errorf(wamp.ErrAuthenticationFailed, "no authenticator for %q", ch.AuthMethod))
	return fmt.Errorf("%w: %q", ErrNoAuthenticator, ch.AuthMethod)
}

// sendAbort sends an ABORT for e; the session is over, so errors are moot.
func sendAbort(p wamp.Peer, e *wamp.RequestError) {
	details := wamp.Dict{}
	if len(e.Args) > 0 {
		details[wamp.KeyMessage] = e.Args[0]
	}
	_ = p.Send(&wamp.Abort{Details: details, Reason: e.URI})
}

// abortError turns an ABORT (or GOODBYE) reason into a RequestError whose
// argument is the router's message, if any.
func abortError(m *wamp.Abort) *wamp.RequestError {
	return closeError(m.Reason, m.Details)
}

func closeError(reason wamp.URI, details wamp.Dict) *wamp.RequestError {
	e := &wamp.RequestError{URI: reason, Details: details}
	if msg, ok := details[wamp.KeyMessage]; ok {
		e.Args = wamp.List{msg}
	}
	return e
}

// helloDetails builds HELLO.Details: roles, authentication and the extra
// details of cfg.
func helloDetails(cfg *Config) wamp.Dict {
	d := wamp.Dict{wamp.KeyAgent: Agent}
	for k, v := range cfg.HelloDetails {
		d[k] = v
	}
	d[wamp.KeyRoles] = clientRoles()
	if cfg.AuthID != "" {
		d[wamp.KeyAuthID] = cfg.AuthID
	}
	if len(cfg.Auth) == 0 {
		return d
	}
	methods := make(wamp.List, 0, len(cfg.Auth))
	extra := wamp.Dict{}
	for _, a := range cfg.Auth {
		methods = append(methods, a.Method())
		for k, v := range a.AuthExtra() {
			extra[k] = v
		}
	}
	d[wamp.KeyAuthMethods] = methods
	if len(extra) > 0 {
		d[wamp.KeyAuthExtra] = extra
	}
	return d
}

// clientRoles announces the four client roles and the features this package
// implements. Payload passthru mode, in every role: the specification's
// form (ppt_* options, one binary argument) goes out as given and comes
// in so; Crossbar's form (enc_* options, the bytes in place of Arguments)
// is sent by PublishPassthru, CallPassthru and a Result's or
// RequestError's Passthru, and read as Event.Passthru,
// Invocation.Passthru, Result.Passthru and RequestError.Passthru.
func clientRoles() wamp.Dict {
	role := func(features ...string) wamp.Dict {
		f := wamp.Dict{}
		for _, name := range features {
			f[name] = true
		}
		return wamp.Dict{wamp.KeyFeatures: f}
	}
	return wamp.Dict{
		"caller": role("progressive_call_results", "call_canceling", "call_timeout",
			"caller_identification", "payload_passthru_mode"),
		"callee": role("progressive_call_results", "call_canceling", "call_timeout",
			"caller_identification", "pattern_based_registration", "shared_registration",
			"registration_revocation", "payload_passthru_mode"),
		"publisher": role("publisher_identification", "subscriber_blackwhite_listing",
			"publisher_exclusion", "payload_passthru_mode"),
		"subscriber": role("publisher_identification", "pattern_based_subscription",
			"subscription_revocation", "payload_passthru_mode"),
	}
}
