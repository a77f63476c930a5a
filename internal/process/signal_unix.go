//go:build unix

package process

import (
	"errors"
	"fmt"
	"syscall"
)

// signal sends sig to the process group unless the leader has been
// reaped (its PID, the group's ID, could then name another group).
func (p *Process) signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.signalLocked(sig)
}

// signalLocked is signal with p.mu held. No such process is no error:
// the group has gone.
func (p *Process) signalLocked(sig syscall.Signal) error {
	if p.reaped {
		return nil
	}
	err := syscall.Kill(-p.pid, sig)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("process %s: %v: %w", p.name, sig, err)
	}
	return nil
}
