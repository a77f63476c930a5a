//go:build unix

package node

import (
	"os"
	"syscall"
)

// isExecutable reports whether path is a file the node may execute.
func isExecutable(path string) bool {
	const xOK = 1
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && syscall.Access(path, xOK) == nil
}
