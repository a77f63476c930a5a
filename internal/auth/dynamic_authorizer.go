package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// AuthorizeFunc asks an authorizer whether a session may perform action
// on uri: Crossbar's authorizer(session, uri, action, options). session
// are the session's details (sessionDetails), options the request's. It
// returns the authorizer's result as it came: a boolean, or a dict with
// "allow" (required), "disclose" and "cache", all booleans. An error that
// wraps ErrUnavailable says the authorizer could not be asked. ctx
// carries the deadline; the function must return when it ends. It is
// called concurrently, from the goroutines of the sessions asking.
type AuthorizeFunc func(ctx context.Context, session wamp.Dict, uri wamp.URI, action Action, options wamp.Dict) (any, error)

// DynamicAuthorizerOptions configures a DynamicAuthorizer. Authorize is
// required: without it every action fails to be authorized.
type DynamicAuthorizerOptions struct {
	// Authorize asks the authorizer.
	Authorize AuthorizeFunc
	// Timeout bounds each call; 0 means DefaultDynamicTimeout.
	Timeout time.Duration
}

// DynamicAuthorizer authorizes by asking an authorizer (a role's
// "authorizer" procedure) for every action, as Crossbar does; an answer
// with "cache": true is kept by the router for the rest of the session
// that asked (see Permission.Cache). It blocks the asking session until
// the answer comes or the timeout passes; an error, a malformed answer or
// no answer in time is an error, and the router refuses the action.
// Immutable, so safe for concurrent use.
type DynamicAuthorizer struct {
	o DynamicAuthorizerOptions
}

var _ Authorizer = (*DynamicAuthorizer)(nil)

// NewDynamicAuthorizer returns the authorizer that asks o.Authorize.
func NewDynamicAuthorizer(o DynamicAuthorizerOptions) *DynamicAuthorizer {
	if o.Timeout <= 0 {
		o.Timeout = DefaultDynamicTimeout
	}
	return &DynamicAuthorizer{o: o}
}

// Authorize asks the authorizer whether id may perform action on uri.
func (a *DynamicAuthorizer) Authorize(id *Identity, action Action, uri wamp.URI, options wamp.Dict) (Permission, error) {
	if id == nil || a.o.Authorize == nil {
		return Permission{}, errors.New("auth: no dynamic authorizer configured")
	}
	if options == nil {
		options = wamp.Dict{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.o.Timeout)
	defer cancel()
	res, err := a.o.Authorize(ctx, sessionDetails(id), uri, action, options)
	switch {
	case err != nil && ctx.Err() != nil:
		return Permission{}, fmt.Errorf("%w: authorizer did not answer within %v", ErrUnavailable, a.o.Timeout)
	case err != nil:
		return Permission{}, fmt.Errorf("auth: authorizer failed: %w", err)
	}
	return permissionOf(res)
}

// permissionOf reads an authorizer's answer as Crossbar checks it: a
// boolean allows or denies; a dict must have "allow", may have
// "disclose" and "cache", nothing else, and all of them booleans.
func permissionOf(res any) (Permission, error) {
	switch r := res.(type) {
	case bool:
		return Permission{Allow: r}, nil
	case wamp.Dict:
		return permissionDict(r)
	case wamp.Object:
		return permissionDict(r.Dict())
	}
	return Permission{}, fmt.Errorf("auth: authorizer returned %s (want a boolean or a dict)", typeName(res))
}

func permissionDict(d wamp.Dict) (Permission, error) {
	if _, ok := d["allow"]; !ok {
		return Permission{}, errors.New(`auth: authorizer returned a dict without "allow"`)
	}
	var p Permission
	fields := map[string]*bool{"allow": &p.Allow, "disclose": &p.Disclose, "cache": &p.Cache}
	for k, v := range d {
		f := fields[k]
		if f == nil {
			return Permission{}, fmt.Errorf("auth: authorizer returned unknown key %q (want allow, disclose, cache)", k)
		}
		b, ok := v.(bool)
		if !ok {
			return Permission{}, fmt.Errorf("auth: authorizer returned %s for %q (want a boolean)", typeName(v), k)
		}
		*f = b
	}
	return p, nil
}
