package router

import (
	"maps"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// Testament scopes.
const (
	scopeDestroyed = "destroyed"
	scopeDetached  = "detached"
)

// testament is an event a session asked the router to publish when it goes.
type testament struct {
	topic  wamp.URI
	opts   wamp.Dict
	args   wamp.List
	kwargs wamp.Object
	size   int // wamp.PayloadSize
}

// testaments are one session's testaments by scope, in the order added,
// and what they hold against the session's limits.
type testaments struct {
	detached, destroyed []testament
	use                 usage
}

func (t *testaments) scope(s string) *[]testament {
	if s == scopeDetached {
		return &t.detached
	}
	return &t.destroyed
}

// addTestament serves wamp.session.add_testament(topic, args, kwargs,
// publish_options=, scope="destroyed") -> testament ID, as Crossbar: the
// event is published on topic when the caller's session leaves the realm,
// by the router (no publisher disclosed). The caller must be allowed to
// publish to topic now; wamp.* topics are refused with invalid_uri. The
// testament must keep the caller and the realm within their testament
// limits (a limitError otherwise).
func (m *metaAPI) addTestament(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	a, err := parseArgs(c, "topic", "args", "kwargs", "publish_options", "scope")
	if err != nil {
		return nil, nil, err
	}
	t, err := m.readTestament(caller, a)
	if err != nil {
		return nil, nil, err
	}
	scope, err := testamentScope(a, 4)
	if err != nil {
		return nil, nil, err
	}
	t.size = wamp.PayloadSize(t.topic, wamp.Payload{Args: t.args, Kwargs: t.kwargs}, t.opts)
	m.mu.Lock()
	err = m.keep(caller.id, scope, t)
	m.mu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	m.shareTestaments(caller.id)
	return wamp.List{uint64(wamp.GlobalID())}, nil, nil
}

// keep adds t to the testaments of session id in scope, or returns the
// limitError that refuses it. m.mu must be held.
func (m *metaAPI) keep(id wamp.ID, scope string, t testament) error {
	lim := m.rm.limits.now()
	ts := m.testaments[id]
	if ts == nil {
		ts = &testaments{}
		m.testaments[id] = ts
	}
	if err := lim.testamentRealm.admit(m.total, 1, t.size); err != nil {
		return err
	}
	if err := lim.testamentSession.admit(ts.use, 1, t.size); err != nil {
		return err
	}
	list := ts.scope(scope)
	*list = append(*list, t)
	ts.use.add(1, t.size)
	m.total.add(1, t.size)
	return nil
}

// readTestament reads and checks the testament's topic, payload and
// publish options.
func (m *metaAPI) readTestament(caller *session, a metaArgs) (testament, error) {
	var t testament
	var err error
	if t.topic, err = a.uri(m.rm, 0, wamp.MatchExact); err != nil {
		return t, err
	}
	if restricted(t.topic) {
		return t, wamp.Errorf(wamp.ErrInvalidURI, "testament topic %q is reserved for the router", t.topic)
	}
	if _, err := caller.authorize(auth.ActionPublish, t.topic, nil); err != nil {
		return t, err
	}
	if t.args, err = a.list(1); err != nil {
		return t, err
	}
	if t.kwargs, err = a.object(2); err != nil {
		return t, err
	}
	opts, err := a.dict(3)
	if err != nil {
		return t, err
	}
	t.opts, err = testamentOptions(opts)
	return t, err
}

// testamentOptions are the publish options of a testament: without those
// that make no sense for it (acknowledge, exclude_me: as Crossbar), the
// others' types checked now so that publishing at leave cannot fail on
// them. The client's dictionary is not modified.
func testamentOptions(opts wamp.Dict) (wamp.Dict, error) {
	if opts == nil {
		return nil, nil
	}
	opts = maps.Clone(opts)
	delete(opts, wamp.OptAcknowledge)
	delete(opts, wamp.OptExcludeMe)
	var f pubFilter
	if err := f.parse(nil, opts); err != nil {
		return nil, err
	}
	_, err := optBool(opts, wamp.OptRetain, false)
	return opts, err
}

// testamentScope reads the scope argument at i: "destroyed" (default) or
// "detached".
func testamentScope(a metaArgs, i int) (string, error) {
	s, has, err := a.str(i)
	switch {
	case err != nil:
		return "", err
	case !has:
		return scopeDestroyed, nil
	case s != scopeDestroyed && s != scopeDetached:
		return "", wamp.Errorf(wamp.ErrInvalidArgument, "%s: scope must be %q or %q, not %q", a.proc, scopeDestroyed, scopeDetached, s)
	}
	return s, nil
}

// flushTestaments serves wamp.session.flush_testaments(scope="destroyed")
// -> the number of testaments removed.
func (m *metaAPI) flushTestaments(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	a, err := parseArgs(c, "scope")
	if err != nil {
		return nil, nil, err
	}
	scope, err := testamentScope(a, 0)
	if err != nil {
		return nil, nil, err
	}
	m.mu.Lock()
	n := 0
	if ts := m.testaments[caller.id]; ts != nil {
		list := ts.scope(scope)
		n = len(*list)
		for _, t := range *list {
			ts.use.add(-1, -t.size)
			m.total.add(-1, -t.size)
		}
		*list = nil
	}
	m.mu.Unlock()
	if n > 0 {
		m.shareTestaments(caller.id)
	}
	return wamp.List{n}, nil, nil
}

// publishTestaments publishes and forgets the testaments of a session that
// left, "detached" ones first, as the spec asks of a router without session
// resumption. Sessions here are never resumed, so leaving detaches and
// destroys them at once: both scopes are published. In a cluster, their
// record in the cluster's table is deleted first: had this node died
// before, the node that reaps it would publish them, and after, it would
// publish them again. Runs on the leaving session's goroutine, with no
// lock held.
func (m *metaAPI) publishTestaments(id wamp.ID) {
	m.mu.Lock()
	ts := m.testaments[id]
	delete(m.testaments, id)
	if ts != nil {
		m.total.add(-ts.use.n, -ts.use.bytes)
	}
	m.mu.Unlock()
	if ts == nil {
		return
	}
	m.shareTestaments(id) // none left: the record goes
	for _, t := range append(ts.detached, ts.destroyed...) {
		m.rm.publishInternal(t.topic, t.opts, t.args, t.kwargs)
	}
}
