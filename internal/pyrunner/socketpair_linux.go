package pyrunner

import "syscall"

// cloexecSocketpair makes a Unix stream socket pair, both ends
// close-on-exec from the start.
func cloexecSocketpair() ([2]int, error) {
	return syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
}
