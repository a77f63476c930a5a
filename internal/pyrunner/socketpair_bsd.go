//go:build unix && !linux

package pyrunner

import "syscall"

// cloexecSocketpair makes a Unix stream socket pair, both ends
// close-on-exec. Without SOCK_CLOEXEC (macOS), the flag is set after,
// under syscall.ForkLock, so that no child started meanwhile inherits
// them.
func cloexecSocketpair() ([2]int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return fds, err
	}
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	return fds, nil
}
