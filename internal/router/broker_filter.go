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

	exclude, eligible               []wamp.ID
	excludeAuthID, eligibleAuthID   []string
	excludeAuthRole, eligibleAuthRl []string
	hasEligible, hasEligibleAuthID  bool
	hasEligibleAuthRole             bool
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
	var has [3]bool
	if f.exclude, has[0], err = optIDs(opts, wamp.OptExclude); err != nil {
		return err
	}
	if f.eligible, f.hasEligible, err = optIDs(opts, wamp.OptEligible); err != nil {
		return err
	}
	if f.excludeAuthID, has[1], err = optStrings(opts, wamp.OptExcludeAuthID); err != nil {
		return err
	}
	if f.eligibleAuthID, f.hasEligibleAuthID, err = optStrings(opts, wamp.OptEligibleAuthID); err != nil {
		return err
	}
	if f.excludeAuthRole, has[2], err = optStrings(opts, wamp.OptExcludeAuthRole); err != nil {
		return err
	}
	if f.eligibleAuthRl, f.hasEligibleAuthRole, err = optStrings(opts, wamp.OptEligibleAuthRole); err != nil {
		return err
	}
	f.simple = !has[0] && !has[1] && !has[2] && !f.hasEligible && !f.hasEligibleAuthID && !f.hasEligibleAuthRole
	return nil
}

// allows reports whether s receives the publication. No allocation.
func (f *pubFilter) allows(s *session) bool {
	if s.id == f.publisher {
		return false
	}
	return f.simple || f.allowsLists(s)
}

func (f *pubFilter) allowsLists(s *session) bool {
	id := &s.ident
	switch {
	case slices.Contains(f.exclude, s.id),
		slices.Contains(f.excludeAuthID, id.AuthID),
		slices.Contains(f.excludeAuthRole, id.AuthRole):
		return false
	case f.hasEligible && !slices.Contains(f.eligible, s.id),
		f.hasEligibleAuthID && !slices.Contains(f.eligibleAuthID, id.AuthID),
		f.hasEligibleAuthRole && !slices.Contains(f.eligibleAuthRl, id.AuthRole):
		return false
	}
	return true
}
