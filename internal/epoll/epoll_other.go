//go:build !linux

package epoll

import (
	"errors"
	"net"
)

// Poller exists on Linux only.
type Poller struct{}

// New fails: there is no epoll here.
func New() (*Poller, error) { return nil, errors.ErrUnsupported }

// Take fails: there is no epoll here.
func Take(net.Conn) (int, error) { return -1, errors.ErrUnsupported }
