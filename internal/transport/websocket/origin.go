package websocket

import "strings"

// originAllowed reports whether a request's Origin header is accepted by
// the lower-cased patterns. An empty list accepts any origin, and a request
// without Origin (not from a browser) is always accepted.
func originAllowed(patterns []string, origin string) bool {
	if len(patterns) == 0 || origin == "" {
		return true
	}
	origin = strings.ToLower(origin)
	for _, pattern := range patterns {
		if matchGlob(pattern, origin) {
			return true
		}
	}
	return false
}

// lowerAll returns the patterns in lower case.
func lowerAll(patterns []string) []string {
	out := make([]string, 0, len(patterns))
	for _, p := range patterns {
		out = append(out, strings.ToLower(p))
	}
	return out
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
