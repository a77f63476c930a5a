//go:build !unix

package connlimit

// descriptorLimit is fallbackLimit: the system has no RLIMIT_NOFILE.
func descriptorLimit() uint64 { return fallbackLimit }
