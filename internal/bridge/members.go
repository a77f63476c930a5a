package bridge

import "github.com/junction-wamp/junction/wamp"

// uriMember reads a required URI member ("procedure", "topic"): a string
// that is a valid loose URI.
func uriMember(obj wamp.Object, name string) (wamp.URI, error) {
	v, ok := obj.Get(name)
	if !ok {
		return "", badRequest(textMissingKey, name)
	}
	s, ok := v.(string)
	if !ok {
		return "", badRequest(textBadMember, "'"+name+"' must be a string")
	}
	if !wamp.ValidURI(wamp.URI(s), false, wamp.MatchExact) {
		return "", badRequest(textBadMember, "invalid URI '"+echo(s)+"' for '"+name+"'")
	}
	return wamp.URI(s), nil
}

// payload reads "args" (a list) and "kwargs" (an object), both optional;
// null counts as absent.
func payload(obj wamp.Object) (wamp.List, wamp.Object, error) {
	var args wamp.List
	if v, _ := obj.Get("args"); v != nil {
		l, ok := v.([]any)
		if !ok {
			return nil, nil, badRequest(textBadMember, "'args' must be a list")
		}
		args = l
	}
	if v, _ := obj.Get("kwargs"); v != nil {
		o, ok := v.(wamp.Object)
		if !ok {
			return nil, nil, badRequest(textBadMember, "'kwargs' must be an object")
		}
		return args, o, nil
	}
	return args, nil, nil
}

// dictMember reads an optional object member; null counts as absent.
func dictMember(obj wamp.Object, name string) (wamp.Dict, error) {
	v, _ := obj.Get(name)
	if v == nil {
		return nil, nil
	}
	d, ok := wamp.AsDict(v)
	if !ok {
		return nil, badRequest(textBadMember, "'"+name+"' must be an object")
	}
	return d, nil
}

// boolOption reads an optional boolean option.
func boolOption(opts wamp.Dict, name string) (bool, error) {
	v, ok := opts[name]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, badRequest(textBadMember, "'options."+name+"' must be a boolean")
	}
	return b, nil
}
