package connlimit

import "math"

// DefaultMax is the cap of each of n listeners that are given none: the
// process's file descriptor limit (RLIMIT_NOFILE, the soft limit, which
// Go raises to the hard limit when the program starts), less a reserve for
// every other descriptor the process needs (connections to upstreams and
// to other routers, files served or logged, the runtime's own), shared
// evenly by the listeners:
//
//	(nofile - max(64, nofile/8)) / n, and at least 1
//
// So 1,024 descriptors give one listener 896 connections and two
// listeners 448 each; 256 give one listener 192. The listeners together
// stay below the limit, and one listener's flood leaves the others their
// share. Where the system has no such limit (Windows), nofile is taken as
// 16,384; an unlimited one counts as math.MaxInt32.
func DefaultMax(n int) int { return defaultMax(descriptorLimit(), n) }

// fallbackLimit stands for the descriptor limit where there is none.
const fallbackLimit = 16384

func defaultMax(nofile uint64, n int) int {
	nofile = min(nofile, math.MaxInt32)
	reserve := max(64, nofile/8)
	if nofile <= reserve || n < 1 {
		return 1
	}
	return max(1, int((nofile-reserve)/uint64(n)))
}
