//go:build unix && !linux

package process

import (
	"os"
	"syscall"
)

// sysProcAttr: no parent-death signal outside Linux; a node killed
// outright (SIGKILL) leaves its children running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// wait reaps the leader, then kills what is left of its group. Without
// Linux's waitid WNOWAIT the leader is reaped first; POSIX keeps its PID
// from reuse while its group has members, so the kill reaches only them.
// (When none is left, a new process given that PID between the reap and
// the kill and made a group leader would get the SIGKILL: a window of a
// few instructions that Linux does not have.)
func (p *Process) wait() (*os.ProcessState, error) {
	state, err := p.proc.Wait()
	close(p.exited)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.signalLocked(syscall.SIGKILL)
	p.reaped = true
	return state, err
}
