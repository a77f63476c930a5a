package wamp

// Match policies for subscriptions and registrations.
const (
	MatchExact    = "exact"
	MatchPrefix   = "prefix"
	MatchWildcard = "wildcard"
)

// ValidURI reports whether u is a valid URI for the given match policy.
//
// Loose rules (the default): components separated by '.' contain no
// whitespace and no '#'. Strict rules: components contain only lower-case
// letters, digits and '_'. Components must be non-empty, except that a
// wildcard pattern may have empty components anywhere and a prefix may end
// with an empty component ("com.example."), as in autobahn. The empty
// string is one empty component, so it is a valid prefix (which matches
// every URI) and a valid wildcard (every one-component URI), never a valid
// exact URI: the patterns autobahn's router checks SUBSCRIBE and REGISTER
// against (_URI_PAT_LOOSE_LAST_EMPTY, _URI_PAT_LOOSE_EMPTY) accept it too.
func ValidURI(u URI, strict bool, match string) bool {
	start := 0
	for i := 0; i <= len(u); i++ {
		if i < len(u) && u[i] != '.' {
			if !validChar(u[i], strict) {
				return false
			}
			continue
		}
		if i == start && !emptyAllowed(match, i == len(u)) {
			return false
		}
		start = i + 1
	}
	return true
}

func emptyAllowed(match string, last bool) bool {
	return match == MatchWildcard || match == MatchPrefix && last
}

func validChar(c byte, strict bool) bool {
	if strict {
		return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '#':
		return false
	}
	return true
}
