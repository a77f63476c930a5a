package connlimit

import "math"

// DefaultCeiling bounds the descriptors that the listeners' default caps
// share, whatever the descriptor limit: Go raises the soft limit to the
// hard one when the program starts, and under systemd that is 524,288, so
// a share of it alone would let a flood hold some 458,000 connections, far
// past the memory a node is given (8 to 15 KiB an idle connection, more a
// busy one). 65,536 is NATS's default max_connections too: about 1 GiB of
// idle connections at most. A node meant to hold more says so with
// max_connections.
const DefaultCeiling = 65536

// DefaultMax is the cap of one of n listeners that is given none, whose
// connections take perConn descriptors each (2 for a listener with a
// reverse proxy or WebSocket proxy path: a proxied connection holds one to
// the upstream too). The listeners share the process's file descriptor
// limit (RLIMIT_NOFILE, the soft limit, which Go raises to the hard limit
// when the program starts), less a reserve for every other descriptor the
// process needs (connections to other routers, files served or logged, the
// runtime's own), and at most DefaultCeiling, evenly:
//
//	min(nofile - max(64, nofile/8), DefaultCeiling) / n / perConn, at least 1
//
// So 1,024 descriptors give one listener 896 connections, two listeners
// 448 each, and one listener with a proxy path 448; 256 give one listener
// 192; 524,288 give one listener 65,536. The listeners together stay below
// the limit, and one listener's flood leaves the others their share.
// Where the system has no such limit (Windows), nofile is taken as 16,384.
func DefaultMax(n, perConn int) int { return defaultMax(descriptorLimit(), n, perConn) }

// fallbackLimit stands for the descriptor limit where there is none.
const fallbackLimit = 16384

func defaultMax(nofile uint64, n, perConn int) int {
	nofile = min(nofile, math.MaxInt32)
	reserve := max(64, nofile/8)
	if nofile <= reserve || n < 1 {
		return 1
	}
	share := min(nofile-reserve, DefaultCeiling) / uint64(n)
	return max(1, int(share)/max(1, perConn))
}
