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
	byIdent   bool    // aud has a list

	exclude, eligible []wamp.ID
	hasEligible       bool
	// aud are the authid and authrole lists. A session that acts for
	// others (GateOptions.ActsFor) is sent them with the event instead.
	aud wamp.Audience
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
	a := &f.aud
	if a.ExcludeAuthID, has[1], err = optStrings(opts, wamp.OptExcludeAuthID); err != nil {
		return err
	}
	if a.EligibleAuthID, a.HasEligibleAuthID, err = optStrings(opts, wamp.OptEligibleAuthID); err != nil {
		return err
	}
	if a.ExcludeAuthRole, has[2], err = optStrings(opts, wamp.OptExcludeAuthRole); err != nil {
		return err
	}
	if a.EligibleAuthRole, a.HasEligibleAuthRole, err = optStrings(opts, wamp.OptEligibleAuthRole); err != nil {
		return err
	}
	f.byIdent = has[1] || has[2] || a.HasEligibleAuthID || a.HasEligibleAuthRole
	f.simple = !has[0] && !f.hasEligible && !f.byIdent
	return nil
}

// allows reports whether s receives the publication. No allocation.
func (f *pubFilter) allows(s *session) bool {
	if s.id == f.publisher {
		return false
	}
	return f.simple || f.allowsLists(s)
}

// allowsLists applies the lists; those by authid and authrole only to a
// session that does not act for others (it gets them as the event's
// Audience).
func (f *pubFilter) allowsLists(s *session) bool {
	switch {
	case slices.Contains(f.exclude, s.id):
		return false
	case f.hasEligible && !slices.Contains(f.eligible, s.id):
		return false
	}
	return s.actsFor() || f.aud.Allows(s.ident.AuthID, s.ident.AuthRole)
}

// audience is the Audience an EVENT carries: nil without authid or
// authrole lists.
func (f *pubFilter) audience() *wamp.Audience {
	if !f.byIdent {
		return nil
	}
	return &f.aud
}
