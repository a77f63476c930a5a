package router

import (
	"slices"

	"github.com/junction-wamp/junction/wamp"
)

// metaArgs are the arguments of a meta procedure call. Each parameter may
// come by position in CALL.Arguments or by name in CALL.ArgumentsKw, as
// autobahn callers pass either (Crossbar's procedures are Python functions).
// A null value counts as absent. Every reader returns a
// wamp.error.invalid_argument RequestError for a value of the wrong type.
type metaArgs struct {
	proc   wamp.URI
	params []string
	args   wamp.List
	kwargs wamp.Object
}

// parseArgs checks c's arguments against the procedure's parameter names:
// no more positional arguments than parameters, no unknown keyword.
func parseArgs(c *wamp.Call, params ...string) (metaArgs, error) {
	args, kwargs, err := wamp.Values(c)
	a := metaArgs{proc: c.Procedure, params: params, args: args, kwargs: kwargs}
	if err != nil {
		return a, wamp.Errorf(wamp.ErrInvalidArgument, "%s: %v", c.Procedure, err)
	}
	if len(args) > len(params) {
		return a, wamp.Errorf(wamp.ErrInvalidArgument, "%s takes at most %d positional arguments, got %d", c.Procedure, len(params), len(args))
	}
	for _, f := range kwargs {
		k := f.Key
		i := slices.Index(params, k)
		if i < 0 {
			return a, wamp.Errorf(wamp.ErrInvalidArgument, "%s has no argument %q", c.Procedure, k)
		}
		if i < len(args) {
			return a, wamp.Errorf(wamp.ErrInvalidArgument, "%s: argument %q given twice", c.Procedure, k)
		}
	}
	return a, nil
}

// value returns parameter i, by position or by name; ok is false when it is
// absent or null.
func (a metaArgs) value(i int) (v any, ok bool) {
	if i < len(a.args) {
		v = a.args[i]
	} else {
		v, _ = a.kwargs.Get(a.params[i])
	}
	return v, v != nil
}

func (a metaArgs) invalid(i int, want string) error {
	return wamp.Errorf(wamp.ErrInvalidArgument, "%s: argument %s must be %s", a.proc, a.params[i], want)
}

// id reads a required ID.
func (a metaArgs) id(i int) (wamp.ID, error) {
	v, ok := a.value(i)
	if !ok {
		return 0, a.invalid(i, "given")
	}
	n, ok := wamp.AsInt(v)
	if !ok || n < 0 {
		return 0, a.invalid(i, "an ID")
	}
	return wamp.ID(n), nil
}

// str reads an optional string; has is false when it is absent.
func (a metaArgs) str(i int) (s string, has bool, err error) {
	v, ok := a.value(i)
	if !ok {
		return "", false, nil
	}
	s, ok = v.(string)
	if !ok {
		return "", true, a.invalid(i, "a string")
	}
	return s, true, nil
}

// requiredStr reads a required string.
func (a metaArgs) requiredStr(i int) (string, error) {
	s, has, err := a.str(i)
	if err == nil && !has {
		err = a.invalid(i, "given")
	}
	return s, err
}

// strings reads an optional list of strings; has is false when absent.
func (a metaArgs) strings(i int) (strs []string, has bool, err error) {
	v, ok := a.value(i)
	if !ok {
		return nil, false, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, true, a.invalid(i, "a list of strings")
	}
	strs = make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, true, a.invalid(i, "a list of strings")
		}
		strs = append(strs, s)
	}
	return strs, true, nil
}

// list reads an optional list (nil when absent).
func (a metaArgs) list(i int) (wamp.List, error) {
	v, ok := a.value(i)
	if !ok {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, a.invalid(i, "a list")
	}
	return l, nil
}

// dict reads an optional dictionary (nil when absent).
func (a metaArgs) dict(i int) (wamp.Dict, error) {
	v, ok := a.value(i)
	if !ok {
		return nil, nil
	}
	d, ok := wamp.AsDict(v)
	if !ok {
		return nil, a.invalid(i, "a dictionary")
	}
	return d, nil
}

// object reads an optional payload dictionary (nil when absent), in the
// order it was sent.
func (a metaArgs) object(i int) (wamp.Object, error) {
	v, ok := a.value(i)
	if !ok {
		return nil, nil
	}
	switch o := v.(type) {
	case wamp.Object:
		return o, nil
	case wamp.Dict:
		return wamp.ObjectOf(o), nil
	}
	return nil, a.invalid(i, "a dictionary")
}

// uri reads a required URI (a topic or procedure) that must be a valid
// URI under the realm's rules for match; invalid_uri otherwise.
func (a metaArgs) uri(rm *realm, i int, match string) (wamp.URI, error) {
	s, err := a.requiredStr(i)
	if err != nil {
		return "", err
	}
	if !rm.validURI(wamp.URI(s), match) {
		return "", wamp.Errorf(wamp.ErrInvalidURI, "%s: invalid URI %q", a.proc, s)
	}
	return wamp.URI(s), nil
}

// integer reads an optional integer; def when absent.
func (a metaArgs) integer(i int, def int) (int, error) {
	v, ok := a.value(i)
	if !ok {
		return def, nil
	}
	n, ok := wamp.AsInt(v)
	if !ok {
		return 0, a.invalid(i, "an integer")
	}
	return int(n), nil
}
