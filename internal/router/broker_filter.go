package router

import (
	"slices"

	"github.com/junction-wamp/junction/internal/wamp"
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
	if f.ExcludeAuthID, _, err = optStrings(opts, wamp.OptExcludeAuthID); err != nil {
		return err
	}
	if f.EligibleAuthID, f.HasEligibleAuthID, err = optStrings(opts, wamp.OptEligibleAuthID); err != nil {
		return err
	}
	if f.ExcludeAuthRole, _, err = optStrings(opts, wamp.OptExcludeAuthRole); err != nil {
		return err
	}
	if f.EligibleAuthRl, f.HasEligibleAuthRole, err = optStrings(opts, wamp.OptEligibleAuthRole); err != nil {
		return err
	}
	f.simplify()
	return nil
}

// simplify sets simple from the lists: an empty exclude list excludes
// nobody, as none does.
func (f *pubFilter) simplify() {
	f.simple = len(f.Exclude) == 0 && len(f.ExcludeAuthID) == 0 && len(f.ExcludeAuthRole) == 0 &&
		!f.HasEligible && !f.HasEligibleAuthID && !f.HasEligibleAuthRole
}

// allows reports whether s receives the publication. No allocation.
func (f *pubFilter) allows(s *session) bool {
	if s.id == f.Publisher {
		return false
	}
	return f.simple || f.allowsLists(s)
}

func (f *pubFilter) allowsLists(s *session) bool {
	id := &s.ident
	switch {
	case slices.Contains(f.Exclude, s.id),
		slices.Contains(f.ExcludeAuthID, id.AuthID),
		slices.Contains(f.ExcludeAuthRole, id.AuthRole):
		return false
	case f.HasEligible && !slices.Contains(f.Eligible, s.id),
		f.HasEligibleAuthID && !slices.Contains(f.EligibleAuthID, id.AuthID),
		f.HasEligibleAuthRole && !slices.Contains(f.EligibleAuthRl, id.AuthRole):
		return false
	}
	return true
}
