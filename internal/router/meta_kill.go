package router

import (
	"github.com/junction-wamp/junction/internal/wamp"
)

// sessionKill serves wamp.session.kill(session, reason=, message=): the
// session gets GOODBYE and is closed in the background (session.end), so
// the caller gets its RESULT at once. A session cannot kill itself: its own
// ID gives no_such_session, as the spec says ("no other session with that
// ID exists").
func (m *metaAPI) sessionKill(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	a, err := parseArgs(c, "session", "reason", "message")
	if err != nil {
		return nil, nil, err
	}
	id, err := a.id(0)
	if err != nil {
		return nil, nil, err
	}
	bye, err := goodbyeArgs(a, 1)
	if err != nil {
		return nil, nil, err
	}
	s := m.rm.session(id)
	if s == nil || s == caller {
		return nil, nil, noSuchSession(id)
	}
	s.end(bye())
	return nil, nil, nil
}

// sessionKillByAuthID serves wamp.session.kill_by_authid(authid, reason=,
// message=) -> [killed session IDs], as Crossbar returns; never the caller.
func (m *metaAPI) sessionKillByAuthID(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	return m.killBy(caller, c, "authid", func(s *session, v string) bool { return s.ident.AuthID == v })
}

// sessionKillByAuthRole serves wamp.session.kill_by_authrole(authrole,
// reason=, message=) -> [killed session IDs]; never the caller.
func (m *metaAPI) sessionKillByAuthRole(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	return m.killBy(caller, c, "authrole", func(s *session, v string) bool { return s.ident.AuthRole == v })
}

// killBy kills every session but the caller for which match(s, arg) holds.
// The victims close in the background (session.end): the caller's RESULT
// does not wait for clients that do not read.
func (m *metaAPI) killBy(caller *session, c *wamp.Call, param string, match func(*session, string) bool) (wamp.List, wamp.Dict, error) {
	a, err := parseArgs(c, param, "reason", "message")
	if err != nil {
		return nil, nil, err
	}
	v, err := a.requiredStr(0)
	if err != nil {
		return nil, nil, err
	}
	bye, err := goodbyeArgs(a, 1)
	if err != nil {
		return nil, nil, err
	}
	victims := m.rm.joined(func(s *session) bool { return s != caller && match(s, v) })
	ids := make(wamp.List, len(victims))
	for i, s := range victims {
		s.end(bye())
		ids[i] = uint64(s.id)
	}
	return wamp.List{ids}, nil, nil
}

// goodbyeArgs reads the reason (default wamp.close.killed) and message
// arguments at positions i and i+1 and returns a maker of the GOODBYE for
// the killed sessions (one each: peers may keep what they are sent).
func goodbyeArgs(a metaArgs, i int) (func() *wamp.Goodbye, error) {
	reason, has, err := a.str(i)
	if err != nil {
		return nil, err
	}
	if !has {
		reason = string(wamp.ErrKilled)
	} else if !wamp.ValidURI(wamp.URI(reason), false, wamp.MatchExact) {
		return nil, wamp.Errorf(wamp.ErrInvalidURI, "%s: invalid reason %q", a.proc, reason)
	}
	msg, hasMsg, err := a.str(i + 1)
	if err != nil {
		return nil, err
	}
	return func() *wamp.Goodbye {
		d := wamp.Dict{}
		if hasMsg {
			d[wamp.KeyMessage] = msg
		}
		return &wamp.Goodbye{Details: d, Reason: wamp.URI(reason)}
	}, nil
}
