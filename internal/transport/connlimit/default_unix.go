//go:build unix

package connlimit

import "syscall"

// descriptorLimit is the soft RLIMIT_NOFILE, or fallbackLimit when it
// cannot be read.
func descriptorLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return fallbackLimit
	}
	return uint64(r.Cur)
}
