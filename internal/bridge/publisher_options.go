package bridge

import "github.com/junction-wamp/junction/wamp"

// optionKind says how a publish option is checked.
type optionKind int

const (
	kindBool    optionKind = iota
	kindIDs                // a session ID or a list of them
	kindStrings            // a string or a list of strings
)

// publishOptionKinds lists the options a Publisher body may carry, as
// Crossbar takes them; any other key is ignored (Crossbar ignores them too;
// forward_for is ignored on purpose: it would let a client forge the
// publisher chain).
var publishOptionKinds = map[string]optionKind{
	wamp.OptExcludeMe:        kindBool,
	wamp.OptRetain:           kindBool,
	wamp.OptExclude:          kindIDs,
	wamp.OptEligible:         kindIDs,
	wamp.OptExcludeAuthID:    kindStrings,
	wamp.OptEligibleAuthID:   kindStrings,
	wamp.OptExcludeAuthRole:  kindStrings,
	wamp.OptEligibleAuthRole: kindStrings,
}

// publishOptions builds the PUBLISH options from the body's "options":
// acknowledge always, the known options checked and single values made
// lists, as the router expects.
func publishOptions(obj wamp.Object) (wamp.Dict, error) {
	in, err := dictMember(obj, "options")
	if err != nil {
		return nil, err
	}
	out := wamp.Dict{wamp.OptAcknowledge: true}
	if len(in) == 0 {
		return out, nil
	}
	for name, kind := range publishOptionKinds {
		v, ok := in[name]
		if !ok || v == nil {
			continue
		}
		if out[name], err = publishOption(name, kind, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func publishOption(name string, kind optionKind, v any) (any, error) {
	switch kind {
	case kindBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, badRequest(textBadMember, "'options."+name+"' must be a boolean")
	case kindIDs:
		if l, ok := listOf(v, isID); ok {
			return l, nil
		}
		return nil, badRequest(textBadMember, "'options."+name+"' must be a session ID or a list of them")
	}
	if l, ok := listOf(v, isString); ok {
		return l, nil
	}
	return nil, badRequest(textBadMember, "'options."+name+"' must be a string or a list of strings")
}

// listOf returns v as a list when v, or each element of v, passes ok.
func listOf(v any, ok func(any) bool) (wamp.List, bool) {
	l, isList := v.([]any)
	if !isList {
		l = wamp.List{v}
	}
	for _, e := range l {
		if !ok(e) {
			return nil, false
		}
	}
	return l, true
}

func isID(v any) bool {
	n, ok := wamp.AsInt(v)
	return ok && n >= 0 && n <= wamp.MaxID
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}
