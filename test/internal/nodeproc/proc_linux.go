package nodeproc

import (
	"os/exec"
	"syscall"
)

// DieWithParent makes the kernel kill cmd when this test process dies (a
// test timeout's panic, a SIGKILL), so that no child outlives the test.
// Call it before cmd.Start.
func DieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
