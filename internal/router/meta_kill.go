package router

import (
	"github.com/junction-wamp/junction/wamp"
)

// sessionKill serves wamp.session.kill(session, reason=, message=),
// wherever the session is in the cluster: the session gets GOODBYE and is
// closed in the background (session.end), so the caller gets its RESULT
// at once. A session cannot kill itself: its own ID gives
// no_such_session, as the spec says ("no other session with that ID
// exists").
func (m *metaAPI) sessionKill(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	a, err := parseArgs(c, "session", "reason", "message")
	if err != nil {
		return nil, nil, err
	}
	id, err := a.id(0)
	if err != nil {
		return nil, nil, err
	}
	q, err := goodbyeArgs(a, 1, MetaQuery{Op: SessionKill, ID: id})
	if err != nil {
		return nil, nil, err
	}
	all, err := m.rm.askMeta(q, caller)
	if err != nil {
		return nil, nil, err
	}
	if len(answeredIDs(all)) == 0 {
		return nil, nil, noSuchSession(id)
	}
	return nil, nil, nil
}

// sessionKillByAuthID serves wamp.session.kill_by_authid(authid, reason=,
// message=) -> [killed session IDs], as Crossbar returns; never the
// caller. It kills on every node of the cluster.
func (m *metaAPI) sessionKillByAuthID(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	return m.killBy(caller, c, "authid", SessionKillByAuthID)
}

// sessionKillByAuthRole serves wamp.session.kill_by_authrole(authrole,
// reason=, message=) -> [killed session IDs]; never the caller.
func (m *metaAPI) sessionKillByAuthRole(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	return m.killBy(caller, c, "authrole", SessionKillByAuthRole)
}

// killBy kills every session but the caller whose authid or authrole
// (op) is the argument param. The victims close in the background
// (session.end): the caller's RESULT does not wait for clients that do
// not read.
func (m *metaAPI) killBy(caller *session, c *wamp.Call, param string, op MetaOp) (wamp.List, wamp.Dict, error) {
	a, err := parseArgs(c, param, "reason", "message")
	if err != nil {
		return nil, nil, err
	}
	v, err := a.requiredStr(0)
	if err != nil {
		return nil, nil, err
	}
	q, err := goodbyeArgs(a, 1, MetaQuery{Op: op, Value: v})
	if err != nil {
		return nil, nil, err
	}
	all, err := m.rm.askMeta(q, caller)
	if err != nil {
		return nil, nil, err
	}
	return wamp.List{answeredIDs(all)}, nil, nil
}

// goodbyeArgs reads the reason (default wamp.close.killed) and message
// arguments at positions i and i+1 into q, the GOODBYE of the killed
// sessions.
func goodbyeArgs(a metaArgs, i int, q MetaQuery) (MetaQuery, error) {
	reason, has, err := a.str(i)
	if err != nil {
		return q, err
	}
	if !has {
		reason = string(wamp.ErrKilled)
	} else if !wamp.ValidURI(wamp.URI(reason), false, wamp.MatchExact) {
		return q, wamp.Errorf(wamp.ErrInvalidURI, "%s: invalid reason %q", a.proc, reason)
	}
	q.Reason = wamp.URI(reason)
	q.Message, q.HasMessage, err = a.str(i + 1)
	return q, err
}
