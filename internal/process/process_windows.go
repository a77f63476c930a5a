package process

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// sysProcAttr: Windows has no process groups as Unix has them; a child's
// own children are not stopped with it.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// wait reaps the process.
func (p *Process) wait() (*os.ProcessState, error) {
	state, err := p.proc.Wait()
	close(p.exited)
	p.mu.Lock()
	p.reaped = true
	p.mu.Unlock()
	return state, err
}

// signal ends the process at once whatever sig is: Windows has no
// SIGTERM, so Stop does not wait Grace.
func (p *Process) signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return nil
	}
	if err := p.proc.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("process %s: %v: %w", p.name, sig, err)
	}
	return nil
}
