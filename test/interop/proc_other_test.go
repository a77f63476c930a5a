//go:build !linux

package interop_test

import "os/exec"

// dieWithParent does nothing here: only Linux has a parent-death signal.
// The node is still stopped by the test's cleanup.
func dieWithParent(*exec.Cmd) {}
