package process

import (
	"os"
	"syscall"
	"unsafe"
)

func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// wait waits for the leader to exit, kills what is left of its group
// while the leader's PID still holds the group ID, then reaps it. The
// error is the first of waiting and reaping.
func (p *Process) wait() (*os.ProcessState, error) {
	err := waitExited(p.pid)
	close(p.exited)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.signalLocked(syscall.SIGKILL)
	state, werr := p.proc.Wait()
	p.reaped = true
	if werr != nil {
		return state, werr
	}
	return state, err
}

// waitExited blocks until the process pid has exited, without reaping it
// (waitid with WNOWAIT), so that its PID cannot be reused meanwhile.
func waitExited(pid int) error {
	var info [128]byte // a siginfo_t, unread
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno != syscall.EINTR {
			if errno != 0 {
				return errno
			}
			return nil
		}
	}
}

// pPID is waitid's P_PID: wait for the process with the given ID.
const pPID = 1
