//go:build unix

package pyrunner

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// socketPair makes a connected pair of Unix stream sockets: the node's end
// as a connection, and the runner's end as a file to pass on (fd 3 at
// start, or with a start call). Both are close-on-exec: the runner's end
// reaches the runner only as process.Spec.ExtraFiles or SCM_RIGHTS, and
// never another child of the node.
func socketPair(name string) (*net.UnixConn, *os.File, error) {
	fds, err := cloexecSocketpair()
	if err != nil {
		return nil, nil, fmt.Errorf("pyrunner: %s: socket pair: %w", name, err)
	}
	mine := os.NewFile(uintptr(fds[0]), name+" (node)")
	theirs := os.NewFile(uintptr(fds[1]), name+" (runner)")
	conn, err := net.FileConn(mine) // a duplicate: mine is closed either way
	mine.Close()
	if err != nil {
		theirs.Close()
		return nil, nil, fmt.Errorf("pyrunner: %s: socket pair: %w", name, err)
	}
	return conn.(*net.UnixConn), theirs, nil
}

// rights is the SCM_RIGHTS control message that passes fd.
func rights(fd uintptr) []byte { return syscall.UnixRights(int(fd)) }
