package e2e_test

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill cmd when this test process dies (a
// test timeout's panic, a SIGKILL), so that no child outlives the test.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
