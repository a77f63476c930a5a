package router

import (
	"slices"

	"github.com/junction-wamp/junction/wamp"
)

// pubFilter selects the receivers of a publication (see Filter). The
// common case (no list) is one comparison per receiver and allocates
// nothing.
type pubFilter struct {
	Filter
	simple bool // no list of Filter is set
}

// parse reads the filter options of PUBLISH from pub (nil for the router).
func (f *pubFilter) parse(pub *session, opts wamp.Dict) error {
	excludeMe, err := optBool(opts, wamp.OptExcludeMe, true)
	if err != nil {
		return err
	}
	if pub != nil && excludeMe {
		f.Publisher = pub.id
	}
	for _, k := range []string{wamp.OptEligible, wamp.OptEligibleAuthID, wamp.OptEligibleAuthRole} {
		if v, given := opts[k]; given && v == nil {
			// Not "absent" (which would mean everyone): fail closed.
			return wamp.Errorf(wamp.ErrInvalidArgument, "option %s must be a list, not null", k)
		}
	}
	if f.Exclude, _, err = optIDs(opts, wamp.OptExclude); err != nil {
		return err
	}
	if f.Eligible, f.HasEligible, err = optIDs(opts, wamp.OptEligible); err != nil {
		return err
	}
	if f.Audience, err = parseAudience(opts); err != nil {
		return err
	}
	f.simplify()
	return nil
}

// simplify sets simple from the lists: an empty exclude list excludes
// nobody, as none does.
func (f *pubFilter) simplify() {
	f.simple = len(f.Exclude) == 0 && !f.HasEligible && f.Audience == nil
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
	if s.id == f.Publisher {
		return false
	}
	return f.simple || f.allowsLists(s)
}

// allowsLists applies the lists; those by authid and authrole only to a
// session that does not act for others (it gets them with the event).
func (f *pubFilter) allowsLists(s *session) bool {
	switch {
	case slices.Contains(f.Exclude, s.id):
		return false
	case f.HasEligible && !slices.Contains(f.Eligible, s.id):
		return false
	}
	return f.Audience == nil || s.actsFor() || f.Audience.Allows(s.ident.AuthID, s.ident.AuthRole)
}
