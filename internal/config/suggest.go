package config

import "strconv"

func itoa(i int) string { return strconv.Itoa(i) }

// suggest returns the known key closest to k by edit distance, or "" when
// none is close enough to be what was meant.
func suggest(k string, known []string) string {
	limit := maxSuggestDistance(k)
	best, bestDist := "", limit+1
	if len(k) > 64 {
		return ""
	}
	for _, c := range known {
		if len(c)-len(k) > limit || len(k)-len(c) > limit {
			continue
		}
		if d := editDistance(k, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// maxSuggestDistance allows one edit in short keys, two in longer ones,
// three in long ones.
func maxSuggestDistance(k string) int {
	switch {
	case len(k) <= 4:
		return 1
	case len(k) <= 10:
		return 2
	}
	return 3
}

// editDistance is the Levenshtein distance between a and b (in bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
