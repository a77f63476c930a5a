package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// Dynamic authentication: the router asks an authenticator outside it
// who a session is, as Crossbar's "dynamic" authenticators (a WAMP
// procedure) and "function" ones (a Python function) do. What is the same
// for every method is here: the call (an AuthenticateFunc, bounded by a
// timeout), the reading of its result and the refusals. When each method
// asks, and what it does with the answer, is in dynamic_methods.go.

// DefaultDynamicTimeout bounds a call to a dynamic authenticator or
// authorizer whose options give no timeout.
const DefaultDynamicTimeout = 10 * time.Second

// ProviderDynamic is the authprovider of the sessions a dynamic
// authenticator admitted, as Crossbar names it.
const ProviderDynamic = "dynamic"

// ProviderFunction is the authprovider of the sessions a function
// authenticator (Python code in the router worker) admitted, as Crossbar
// names it.
const ProviderFunction = "function"

// AuthenticateFunc asks an authenticator who a session is: Crossbar's
// authenticator(realm, authid, details). realm is the realm the HELLO
// names; authid is "" when there is none (a WAMP authenticator is then
// given null); details are described at each method's constructor. It
// returns the authenticator's result as it came: a role (a string) or a
// dict with "role", "authid", "realm", "extra" and the method's own keys.
//
// Its error is the authenticator's refusal when it is, or wraps, a
// *wamp.RequestError: the URI and first argument become the ABORT's
// reason and message. An error that wraps ErrUnavailable says the
// authenticator could not be asked. ctx carries the deadline; the
// function must return when it ends. It is called concurrently, from the
// goroutines of the sessions logging in.
type AuthenticateFunc func(ctx context.Context, realm wamp.URI, authid string, details wamp.Dict) (any, error)

// DynamicOptions configures a dynamic authenticator. Authenticate is
// required: without it every login is refused (authentication_failed).
type DynamicOptions struct {
	// Authenticate asks the authenticator.
	Authenticate AuthenticateFunc
	// DefaultRole is the authrole given when the result names none
	// (Crossbar's "default-role"); "" refuses such a result with
	// wamp.error.no_such_role.
	DefaultRole string
	// Timeout bounds each call; 0 means DefaultDynamicTimeout.
	Timeout time.Duration
	// Provider is the authprovider the sessions get; "" means
	// ProviderDynamic (ProviderFunction for a function authenticator).
	Provider string
	// AuthID is the authid an anonymous session is asked about (the
	// anonymous method only); "" means a random one per session. The
	// authid the client asks for is never used.
	AuthID string
}

func (o *DynamicOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultDynamicTimeout
	}
	return o.Timeout
}

func (o *DynamicOptions) provider() string {
	if o.Provider == "" {
		return ProviderDynamic
	}
	return o.Provider
}

// dynamic is what every dynamic authenticator has: its method and
// options. Immutable, so safe for concurrent use.
type dynamic struct {
	method string
	o      DynamicOptions
}

// isDynamic marks the dynamic authenticators; see IsDynamic.
func (*dynamic) isDynamic() {}

func (d *dynamic) Method() string { return d.method }

// IsDynamic reports whether a asks a dynamic authenticator (or function)
// who a session is. The router then treats Start as a login attempt of
// its own (the authenticator may refuse at once, and a refusal counts as
// a failed login), and lets a HELLO name a realm the router does not
// have, since the authenticator may assign another (Identity.Realm).
func IsDynamic(a Authenticator) bool {
	_, ok := a.(interface{ isDynamic() })
	return ok
}

// AssignsRealm reports whether a may give a session another realm than
// its HELLO names (Identity.Realm): a dynamic authenticator, or static
// cryptosign principals with a realm. The router then lets a HELLO name a
// realm it does not have, and checks the realm once a has answered.
func AssignsRealm(a Authenticator) bool {
	r, ok := a.(interface{ assignsRealm() bool })
	return IsDynamic(a) || ok && r.assignsRealm()
}

// ask calls the authenticator about req, as authid, with details, and
// reads its answer.
func (d *dynamic) ask(req *Request, authid string, details wamp.Dict) (*principal, error) {
	if d.o.Authenticate == nil {
		return nil, wamp.Errorf(wamp.ErrAuthenticationFailed, "no dynamic authenticator configured")
	}
	ctx, cancel := context.WithTimeout(context.Background(), d.o.timeout())
	defer cancel()
	res, err := d.o.Authenticate(ctx, req.Realm, authid, details)
	if err != nil {
		return nil, d.refusal(ctx, err)
	}
	return d.principal(res, req.Realm, authid)
}

// refusal is the ABORT for an error of the authenticator: its own
// refusal (a *wamp.RequestError: URI and first argument as the message,
// as Crossbar forwards them), or wamp.error.authentication_failed when it
// did not answer in time or failed otherwise. ErrUnavailable is kept.
func (d *dynamic) refusal(ctx context.Context, err error) error {
	var re *wamp.RequestError
	var out error
	switch {
	case ctx.Err() != nil:
		out = wamp.Errorf(wamp.ErrAuthenticationFailed, "dynamic authenticator did not answer within %v", d.o.timeout())
		return fmt.Errorf("%w: %w", ErrUnavailable, out)
	case errors.As(err, &re):
		out = &wamp.RequestError{URI: re.URI, Args: messageOf(re)}
	default:
		out = wamp.Errorf(wamp.ErrAuthenticationFailed, "dynamic authenticator failed: %v", err)
	}
	if errors.Is(err, ErrUnavailable) {
		return fmt.Errorf("%w: %w", ErrUnavailable, out)
	}
	return out
}

// messageOf is an error's first argument as text, the ABORT message
// Crossbar makes of it; none without arguments.
func messageOf(re *wamp.RequestError) wamp.List {
	if len(re.Args) == 0 {
		return nil
	}
	if s, ok := re.Args[0].(string); ok {
		return wamp.List{s}
	}
	return wamp.List{fmt.Sprint(re.Args[0])}
}

// principal is what an authenticator said of a session: the identity
// it gives, and its whole answer, where each method finds its own keys
// (a WAMP-CRA secret, a cryptosign public key).
type principal struct {
	id     Identity
	answer wamp.Dict
}

// principal reads an authenticator's result as Crossbar does: a string
// is a role; a dict may set "role" (else DefaultRole), "authid" (else
// the one asked about), "realm" (else the HELLO's) and "extra". A
// session needs an authid and a role.
func (d *dynamic) principal(res any, realm wamp.URI, authid string) (*principal, error) {
	answer, err := resultDict(res)
	if err != nil {
		return nil, err
	}
	p := &principal{answer: answer, id: Identity{
		AuthID: authid, AuthRole: d.o.DefaultRole, AuthMethod: d.method, AuthProvider: d.o.provider(),
	}}
	if err := p.read(); err != nil {
		return nil, err
	}
	if p.id.Realm == "" {
		p.id.Realm = realm
	}
	switch {
	case p.id.AuthID == "":
		return nil, wamp.Errorf(wamp.ErrNoSuchPrincipal, "no authid assigned")
	case p.id.AuthRole == "":
		return nil, wamp.Errorf(wamp.ErrNoSuchRole, "no authrole assigned")
	}
	return p, nil
}

// resultDict returns an authenticator's result as a dict: a string is
// {"role": it}.
func resultDict(res any) (wamp.Dict, error) {
	switch r := res.(type) {
	case string:
		return wamp.Dict{"role": r}, nil
	case wamp.Dict:
		return r, nil
	case wamp.Object:
		return r.Dict(), nil
	}
	return nil, wamp.Errorf(wamp.ErrAuthenticationFailed, "got invalid return type %s from dynamic authenticator (want a role or a dict)", typeName(res))
}

// read sets the identity from the answer's role, authid, realm and
// extra; null counts as absent.
func (p *principal) read() error {
	for _, k := range []string{"role", "authid", "realm"} {
		s, err := p.text(k)
		if err != nil {
			return err
		}
		switch {
		case s == "":
		case k == "role":
			p.id.AuthRole = s
		case k == "authid":
			p.id.AuthID = s
		default:
			p.id.Realm = wamp.URI(s)
		}
	}
	extra, ok := wamp.AsDict(p.answer["extra"])
	if !ok && p.answer["extra"] != nil {
		return invalidKey("extra", p.answer["extra"], "a dict")
	}
	p.id.AuthExtra = extra
	return nil
}

// text is the string at key k of the answer, "" when absent or null.
func (p *principal) text(k string) (string, error) {
	v := p.answer[k]
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", invalidKey(k, v, "a string")
	}
	return s, nil
}

// integer is the integer at key k of the answer, from 1 to hi; 0 when
// absent or null.
func (p *principal) integer(k string, hi int64) (int, error) {
	v := p.answer[k]
	if v == nil {
		return 0, nil
	}
	n, ok := wamp.AsInt(v)
	if !ok || n < 1 || n > hi {
		return 0, invalidKey(k, v, fmt.Sprintf("an integer from 1 to %d", hi))
	}
	return int(n), nil
}

func invalidKey(k string, v any, want string) error {
	return wamp.Errorf(wamp.ErrAuthenticationFailed, "dynamic authenticator returned %s for %q (want %s)", typeName(v), k, want)
}

// typeName names the type of a WAMP value, as a user of the JSON or
// Python side knows it.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case wamp.Dict, wamp.Object:
		return "a dict"
	case wamp.List:
		return "a list"
	}
	if _, ok := wamp.AsInt(v); ok {
		return "an integer"
	}
	return fmt.Sprintf("a %T", v)
}
