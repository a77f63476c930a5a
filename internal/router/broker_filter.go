package router

import (
	"slices"

	"github.com/junction-wamp/junction/internal/wamp"
)

// pubFilter selects the receivers of a publication: exclude_me,
// exclude/eligible by session ID, authid and authrole. The common case (no
// list) is one comparison per receiver and allocates nothing.
type pubFilter struct {
	publisher wamp.ID // excluded by exclude_me; 0 for none
	simple    bool    // no list below is set

	exclude, eligible []wamp.ID
	hasEligible       bool
	// aud are the authid and authrole lists, nil without any. A session
	// that acts for others (GateOptions.ActsFor) is sent them with the
	// event (wamp.Addressed) instead.
	aud *wamp.Audience
}

// parse reads the filter options of PUBLISH from pub (nil for the router).
func (f *pubFilter) parse(pub *session, opts wamp.Dict) error {
	excludeMe, err := optBool(opts, wamp.OptExcludeMe, true)
	if err != nil {
		return err
	}
	if pub != nil && excludeMe {
		f.publisher = pub.id
	}
	for _, k := range []string{wamp.OptEligible, wamp.OptEligibleAuthID, wamp.OptEligibleAuthRole} {
		if v, given := opts[k]; given && v == nil {
			// Not "absent" (which would mean everyone): fail closed.
			return wamp.Errorf(wamp.ErrInvalidArgument, "option %s must be a list, not null", k)
		}
	}
	hasExclude := false
	if f.exclude, hasExclude, err = optIDs(opts, wamp.OptExclude); err != nil {
		return err
	}
	if f.eligible, f.hasEligible, err = optIDs(opts, wamp.OptEligible); err != nil {
		return err
	}
	if f.aud, err = parseAudience(opts); err != nil {
		return err
	}
	f.simple = !hasExclude && !f.hasEligible && f.aud == nil
	return nil
}

// parseAudience reads the authid and authrole lists; nil without any (no
// allocation then).
func parseAudience(opts wamp.Dict) (*wamp.Audience, error) {
	exID, hasExID, err := optStrings(opts, wamp.OptExcludeAuthID)
	if err != nil {
		return nil, err
	}
	elID, hasElID, err := optStrings(opts, wamp.OptEligibleAuthID)
	if err != nil {
		return nil, err
	}
	exRole, hasExRole, err := optStrings(opts, wamp.OptExcludeAuthRole)
	if err != nil {
		return nil, err
	}
	elRole, hasElRole, err := optStrings(opts, wamp.OptEligibleAuthRole)
	if err != nil || !hasExID && !hasElID && !hasExRole && !hasElRole {
		return nil, err
	}
	return &wamp.Audience{ExcludeAuthID: exID, EligibleAuthID: elID, ExcludeAuthRole: exRole, EligibleAuthRole: elRole,
		HasEligibleAuthID: hasElID, HasEligibleAuthRole: hasElRole}, nil
}

// allows reports whether s receives the publication. No allocation.
func (f *pubFilter) allows(s *session) bool {
	if s.id == f.publisher {
		return false
	}
	return f.simple || f.allowsLists(s)
}

// allowsLists applies the lists; those by authid and authrole only to a
// session that does not act for others (it gets them with the event).
func (f *pubFilter) allowsLists(s *session) bool {
	switch {
	case slices.Contains(f.exclude, s.id):
		return false
	case f.hasEligible && !slices.Contains(f.eligible, s.id):
		return false
	}
	return f.aud == nil || s.actsFor() || f.aud.Allows(s.ident.AuthID, s.ident.AuthRole)
}
