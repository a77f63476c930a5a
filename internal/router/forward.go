package router

import "github.com/junction-wamp/junction/wamp"

// forwardFor is the forward_for option of a PUBLISH or CALL sent by a
// router-to-router link: the sessions the message went through, the
// original publisher or caller first. As in Crossbar, any session may send
// it; it shows only where the publisher or caller is disclosed.
type forwardFor []wamp.Dict

// optForwardFor reads and checks forward_for: a list of
// {session, authid, authrole}. Absent, null or empty: nil.
func optForwardFor(opts wamp.Dict) (forwardFor, error) {
	v, ok := option(opts, wamp.OptForwardFor)
	if !ok {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, badForwardFor()
	}
	ff := make(forwardFor, 0, len(l))
	for _, e := range l {
		h, err := forwardHop(e)
		if err != nil {
			return nil, err
		}
		ff = append(ff, h)
	}
	if len(ff) == 0 {
		return nil, nil
	}
	return ff, nil
}

// forwardHop checks one entry of forward_for and returns it normalised.
func forwardHop(e any) (wamp.Dict, error) {
	d, ok := e.(wamp.Dict)
	if !ok {
		return nil, badForwardFor()
	}
	id, ok := wamp.AsInt(d[wamp.KeySession])
	authid, okID := d[wamp.KeyAuthID].(string)
	authrole, okRole := d[wamp.KeyAuthRole].(string)
	if !ok || id < 0 || id > wamp.MaxID || !okID || !okRole {
		return nil, badForwardFor()
	}
	return wamp.Dict{wamp.KeySession: uint64(id), wamp.KeyAuthID: authid, wamp.KeyAuthRole: authrole}, nil
}

func badForwardFor() error {
	return wamp.Errorf(wamp.ErrInvalidArgument, "option %s must be a list of {session, authid, authrole}", wamp.OptForwardFor)
}

// identityKeys name the detail keys that disclose a publisher or a caller.
type identityKeys struct{ session, authid, authrole string }

var (
	publisherKeys = identityKeys{wamp.OptPublisher, wamp.OptPublisherAuthID, wamp.OptPublisherAuthRole}
	callerKeys    = identityKeys{wamp.OptCaller, wamp.OptCallerAuthID, wamp.OptCallerAuthRole}
)

// disclose writes into d the identity of s (with the authid and authrole
// of as, who s acts for, when not nil), or, for a forwarded message, that
// of the original sender (the first of ff) and forward_for with s
// appended, as Crossbar does.
func (ff forwardFor) disclose(d wamp.Dict, s *session, as *wamp.Identity, k identityKeys) {
	authid, authrole := s.actor(as)
	if len(ff) == 0 {
		d[k.session] = uint64(s.id)
		d[k.authid] = authid
		d[k.authrole] = authrole
		return
	}
	d[k.session] = ff[0][wamp.KeySession]
	d[k.authid] = ff[0][wamp.KeyAuthID]
	d[k.authrole] = ff[0][wamp.KeyAuthRole]
	chain := make([]any, 0, len(ff)+1)
	for _, h := range ff {
		chain = append(chain, h)
	}
	chain = append(chain, wamp.Dict{wamp.KeySession: uint64(s.id), wamp.KeyAuthID: authid, wamp.KeyAuthRole: authrole})
	d[wamp.OptForwardFor] = chain
}
