//go:build !linux

package e2e_test

import "os/exec"

// dieWithParent does nothing here: only Linux has a parent-death signal.
// Children are still stopped by the tests' cleanups.
func dieWithParent(*exec.Cmd) {}
