//go:build !linux

package nodeproc

import "os/exec"

// DieWithParent does nothing here: only Linux has a parent-death signal.
// Children are still stopped by the tests' cleanups.
func DieWithParent(*exec.Cmd) {}
