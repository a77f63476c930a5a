package router

import "github.com/junction-wamp/junction/wamp"

// Typed reads of request options. A value of the wrong type is an
// invalid_argument error for the request; a missing one gives def.

// option returns the value of key in opts. A null value counts as absent:
// MessagePack and CBOR clients such as wampy.js send an unset option as
// null (JavaScript's undefined), where JSON leaves it out. (The eligible
// options of PUBLISH are the exception: see pubFilter.parse.)
func option(opts wamp.Dict, key string) (any, bool) {
	v := opts[key]
	return v, v != nil
}

func optBool(opts wamp.Dict, key string, def bool) (bool, error) {
	v, ok := option(opts, key)
	if !ok {
		return def, nil
	}
	b, ok := v.(bool)
	if !ok {
		return def, wamp.Errorf(wamp.ErrInvalidArgument, "option %s must be a boolean", key)
	}
	return b, nil
}

func optString(opts wamp.Dict, key, def string) (string, error) {
	v, ok := option(opts, key)
	if !ok {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return def, wamp.Errorf(wamp.ErrInvalidArgument, "option %s must be a string", key)
	}
	return s, nil
}

func optInt(opts wamp.Dict, key string) (int64, error) {
	v, ok := option(opts, key)
	if !ok {
		return 0, nil
	}
	n, ok := wamp.AsInt(v)
	if !ok {
		return 0, wamp.Errorf(wamp.ErrInvalidArgument, "option %s must be an integer", key)
	}
	return n, nil
}

// optIDs reads a list of IDs; has reports whether the option was present.
func optIDs(opts wamp.Dict, key string) (ids []wamp.ID, has bool, err error) {
	v, ok := option(opts, key)
	if !ok {
		return nil, false, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, true, wamp.Errorf(wamp.ErrInvalidArgument, "option %s must be a list of session IDs", key)
	}
	ids = make([]wamp.ID, 0, len(l))
	for _, e := range l {
		n, ok := wamp.AsInt(e)
		if !ok || n < 0 {
			return nil, true, wamp.Errorf(wamp.ErrInvalidArgument, "option %s must be a list of session IDs", key)
		}
		ids = append(ids, wamp.ID(n))
	}
	return ids, true, nil
}

// optStrings reads a list of strings; has reports whether it was present.
func optStrings(opts wamp.Dict, key string) (strs []string, has bool, err error) {
	v, ok := option(opts, key)
	if !ok {
		return nil, false, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, true, wamp.Errorf(wamp.ErrInvalidArgument, "option %s must be a list of strings", key)
	}
	strs = make([]string, 0, len(l))
	for _, e := range l {
		str, ok := e.(string)
		if !ok {
			return nil, true, wamp.Errorf(wamp.ErrInvalidArgument, "option %s must be a list of strings", key)
		}
		strs = append(strs, str)
	}
	return strs, true, nil
}

// optMatch reads the match option of SUBSCRIBE or REGISTER.
func optMatch(opts wamp.Dict) (string, error) {
	m, err := optString(opts, wamp.OptMatch, wamp.MatchExact)
	if err != nil {
		return "", err
	}
	switch m {
	case wamp.MatchExact, wamp.MatchPrefix, wamp.MatchWildcard:
		return m, nil
	}
	return "", wamp.Errorf(wamp.ErrInvalidArgument, "unknown match policy %q", m)
}
