package pyrunner

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// errNoUnixRights: the runner channel passes descriptors (SCM_RIGHTS)
// over a Unix socket pair, which Windows does not have.
var errNoUnixRights = fmt.Errorf("a Python component needs a Unix socket pair, which Windows does not have: %w", errors.ErrUnsupported)

// socketPair fails on Windows: see errNoUnixRights.
func socketPair(name string) (*net.UnixConn, *os.File, error) {
	return nil, nil, fmt.Errorf("pyrunner: %s: %w", name, errNoUnixRights)
}

// rights is never reached on Windows: no channel is ever made.
func rights(uintptr) []byte { return nil }
