package node

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"strconv"
	"syscall"

	"github.com/junction-wamp/junction/internal/config"
)

// listenSpec is a resolved listening endpoint.
type listenSpec struct {
	network string // "tcp", "tcp4", "tcp6" or "unix"
	address string // host:port, or the socket file (absolute)
}

// listenSpecOf resolves e: tcp with "interface" (default all interfaces)
// and "version" 4 (tcp4) or 6 (tcp6, or both IPv4 and IPv6 without an
// interface); unix with "path" relative to the node directory.
func (b *builder) listenSpecOf(e config.ListenEndpoint) (listenSpec, error) {
	switch e.Type {
	case "tcp":
		network := "tcp4"
		if e.Version == 6 {
			network = "tcp6"
			if e.Interface == "" {
				network = "tcp"
			}
		}
		return listenSpec{network: network, address: net.JoinHostPort(e.Interface, strconv.Itoa(e.Port))}, nil
	case "unix":
		if e.Path == "" {
			return listenSpec{}, errors.New("node: unix endpoint without path")
		}
		return listenSpec{network: "unix", address: b.resolve(e.Path)}, nil
	}
	return listenSpec{}, fmt.Errorf("node: unknown endpoint type %q", e.Type)
}

// logEndpoint logs, at debug level, the endpoint option that Junction
// accepts silently: the listen backlog is the system's (net.Listen gives no
// control over it; on Linux it is net.core.somaxconn), whatever "backlog"
// says. The options it does not apply ("shared", "user_timeout") were
// reported by package config when the file loaded.
func logEndpoint(log *slog.Logger, path string, e config.ListenEndpoint) {
	log.Debug("listen backlog is the system's", "transport", path, "backlog", e.Backlog)
}

// listen opens the listening socket of s. For a Unix socket, a stale socket
// file (a socket that nothing accepts on: connecting is refused) is removed
// first; any other existing file is left alone and the listen fails.
func listen(s listenSpec) (net.Listener, error) {
	if s.network == "unix" {
		if err := removeStaleSocket(s.address); err != nil {
			return nil, err
		}
	}
	var lc net.ListenConfig
	return lc.Listen(context.Background(), s.network, s.address)
}

// removeStaleSocket removes path if it is a Unix socket with no listener.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil || fi.Mode().Type() != fs.ModeSocket {
		return nil // listen reports "address already in use"
	}
	c, err := net.Dial("unix", path)
	if err == nil {
		c.Close()
		return nil // alive: listen reports "address already in use"
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return nil
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("node: removing stale socket %s: %w", path, err)
	}
	return nil
}
