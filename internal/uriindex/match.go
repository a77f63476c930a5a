package uriindex

import "strconv"

// Match is a URI matching policy, as in the "match" option of SUBSCRIBE and
// REGISTER (WAMP Advanced Profile, pattern-based subscriptions and
// registrations).
type Match uint8

// The matching policies.
const (
	// Exact: the pattern equals the URI.
	Exact Match = iota
	// Prefix: the pattern is a string prefix of the URI ("a.b" matches
	// "a.b", "a.b.c" and "a.bc").
	Prefix
	// Wildcard: the pattern and the URI have the same number of
	// '.'-separated components, and every non-empty pattern component
	// equals the URI component at its position.
	Wildcard
)

// ParseMatch returns the policy named s ("exact", "prefix" or "wildcard").
// It reports false for any other string, including "".
func ParseMatch(s string) (Match, bool) {
	switch s {
	case "exact":
		return Exact, true
	case "prefix":
		return Prefix, true
	case "wildcard":
		return Wildcard, true
	}
	return 0, false
}

// String returns the policy's wire name ("exact", "prefix", "wildcard"), or
// "Match(n)" for a value that is not one of the constants.
func (m Match) String() string {
	switch m {
	case Exact:
		return "exact"
	case Prefix:
		return "prefix"
	case Wildcard:
		return "wildcard"
	}
	return "Match(" + strconv.Itoa(int(m)) + ")"
}

// valid reports whether m is one of the three policies.
func (m Match) valid() bool { return m <= Wildcard }
