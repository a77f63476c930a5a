package wsupgrade

import "strings"

// Origins are the origin patterns a WebSocket endpoint accepts (Crossbar's
// allowed_origins): each '*' stands for any run of characters, possibly
// empty, and everything else is literal; case does not matter. The zero
// value accepts every origin. Safe for concurrent use.
type Origins struct {
	patterns []string // lower case
}

// NewOrigins returns the Origins of patterns; none accepts every origin.
func NewOrigins(patterns []string) Origins {
	lower := make([]string, 0, len(patterns))
	for _, p := range patterns {
		lower = append(lower, strings.ToLower(p))
	}
	return Origins{patterns: lower}
}

// Allow reports whether a request's Origin header is accepted. A request
// without Origin (not from a browser) is always accepted.
func (o Origins) Allow(origin string) bool {
	if len(o.patterns) == 0 || origin == "" {
		return true
	}
	origin = strings.ToLower(origin)
	for _, pattern := range o.patterns {
		if matchGlob(pattern, origin) {
			return true
		}
	}
	return false
}

// matchGlob matches s against pattern, where each '*' stands for any run of
// characters (possibly empty) and everything else is literal.
func matchGlob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	first, last := parts[0], parts[len(parts)-1]
	if !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) || len(s) < len(first)+len(last) {
		return false
	}
	s = s[len(first) : len(s)-len(last)]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return true
}
