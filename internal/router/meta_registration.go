package router

import "github.com/junction-wamp/junction/wamp"

// Registration meta events.
const (
	topicRegOnCreate     wamp.URI = "wamp.registration.on_create"
	topicRegOnRegister   wamp.URI = "wamp.registration.on_register"
	topicRegOnUnregister wamp.URI = "wamp.registration.on_unregister"
	topicRegOnDelete     wamp.URI = "wamp.registration.on_delete"
)

// RegistrationCreated publishes on_create(session, details).
func (m *metaAPI) RegistrationCreated(session wamp.ID, reg regInfo) {
	if !restricted(reg.Procedure) {
		m.rm.publishInternal(topicRegOnCreate, nil, wamp.List{uint64(session), registrationDetails(reg)}, nil)
	}
}

// Registered publishes on_register(session, registration).
func (m *metaAPI) Registered(session wamp.ID, reg regInfo) {
	m.regEvent(topicRegOnRegister, session, reg)
}

// Unregistered publishes on_unregister(session, registration).
func (m *metaAPI) Unregistered(session wamp.ID, reg regInfo) {
	m.regEvent(topicRegOnUnregister, session, reg)
}

// RegistrationDeleted publishes on_delete(session, registration).
func (m *metaAPI) RegistrationDeleted(session wamp.ID, reg regInfo) {
	m.regEvent(topicRegOnDelete, session, reg)
}

// regEvent publishes a registration meta event but for wamp.* procedures
// (none: clients cannot register them), as Crossbar.
func (m *metaAPI) regEvent(topic wamp.URI, session wamp.ID, reg regInfo) {
	if !restricted(reg.Procedure) {
		m.rm.publishInternal(topic, nil, wamp.List{uint64(session), uint64(reg.ID)}, nil)
	}
}

// registrationDetails are the details of wamp.registration.get and
// on_create.
func registrationDetails(r regInfo) wamp.Dict {
	return wamp.Dict{
		"id":      uint64(r.ID),
		"created": r.Created.UTC().Format(isoTime),
		"uri":     string(r.Procedure),
		"match":   r.Match,
		"invoke":  r.Invoke,
	}
}

// registrationList serves wamp.registration.list() -> {exact: [ids],
// prefix: [ids], wildcard: [ids]}.
func (m *metaAPI) registrationList(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	if _, err := parseArgs(c); err != nil {
		return nil, nil, err
	}
	d := m.rm.dealer
	lists := newMatchLists()
	d.mu.Lock()
	for _, reg := range d.byID {
		if !hidden(caller, reg.procedure) {
			lists.add(reg.match, reg.id)
		}
	}
	d.mu.Unlock()
	return wamp.List{lists.dict()}, nil, nil
}

// registrationLookup serves wamp.registration.lookup(procedure,
// options={match}) -> the ID of the registration of exactly that pattern,
// or null.
func (m *metaAPI) registrationLookup(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	uri, um, err := lookupArgs(m.rm, c, "procedure")
	if err != nil {
		return nil, nil, err
	}
	d := m.rm.dealer
	d.mu.Lock()
	reg, ok := d.index.Get(string(uri), um)
	d.mu.Unlock()
	ok = ok && !hidden(caller, uri)
	return idOrNil(regID(reg), ok), nil, nil
}

// registrationMatch serves wamp.registration.match(procedure) -> the ID of
// the registration a call to procedure would go to, or null.
func (m *metaAPI) registrationMatch(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	a, err := parseArgs(c, "procedure")
	if err != nil {
		return nil, nil, err
	}
	uri, err := a.uri(m.rm, 0, wamp.MatchExact)
	if err != nil {
		return nil, nil, err
	}
	d := m.rm.dealer
	d.mu.Lock()
	pattern, _, reg, ok := d.index.Best(string(uri))
	d.mu.Unlock()
	ok = ok && !hidden(caller, wamp.URI(pattern))
	return idOrNil(regID(reg), ok), nil, nil
}

func regID(r *registration) wamp.ID {
	if r == nil {
		return 0
	}
	return r.id
}

// registrationGet serves wamp.registration.get(registration) -> details.
func (m *metaAPI) registrationGet(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	info, _, err := m.registrationByID(caller, c)
	if err != nil {
		return nil, nil, err
	}
	return wamp.List{registrationDetails(info)}, nil, nil
}

// registrationListCallees serves wamp.registration.list_callees(
// registration) -> [session IDs].
func (m *metaAPI) registrationListCallees(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	_, callees, err := m.registrationByID(caller, c)
	if err != nil {
		return nil, nil, err
	}
	return wamp.List{idList(callees)}, nil, nil
}

// registrationCountCallees serves wamp.registration.count_callees(
// registration) -> count.
func (m *metaAPI) registrationCountCallees(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	_, callees, err := m.registrationByID(caller, c)
	if err != nil {
		return nil, nil, err
	}
	return wamp.List{len(callees)}, nil, nil
}

// registrationByID reads the registration argument and returns that
// registration and its callees' session IDs.
func (m *metaAPI) registrationByID(caller *session, c *wamp.Call) (regInfo, []wamp.ID, error) {
	a, err := parseArgs(c, "registration")
	if err != nil {
		return regInfo{}, nil, err
	}
	id, err := a.id(0)
	if err != nil {
		return regInfo{}, nil, err
	}
	info, callees, ok := m.rm.dealer.snapshot(id)
	if !ok {
		return regInfo{}, nil, wamp.Errorf(wamp.ErrNoSuchRegistration, "no registration with ID %d exists on this dealer", id)
	}
	if hidden(caller, info.Procedure) {
		return regInfo{}, nil, wamp.Errorf(wamp.ErrNotAuthorized, "not authorized to look at registration %d of protected URI %q", id, info.Procedure)
	}
	return info, callees, nil
}

// snapshot returns registration id and its callees' session IDs; ok is
// false when there is none. Takes dealer.mu.
func (d *dealer) snapshot(id wamp.ID) (info regInfo, callees []wamp.ID, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	reg := d.byID[id]
	if reg == nil {
		return regInfo{}, nil, false
	}
	callees = make([]wamp.ID, len(reg.callees))
	for i, c := range reg.callees {
		callees[i] = c.s.id
	}
	return reg.info(), callees, true
}
