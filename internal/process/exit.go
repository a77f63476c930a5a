package process

import (
	"fmt"
	"os"
	"syscall"
)

// ExitError is a process's exit other than status 0.
type ExitError struct {
	Name   string         // Spec.Name
	Code   int            // the exit status; -1 when killed by a signal
	Signal syscall.Signal // the signal that killed it; 0 for an exit status
}

func newExitError(name string, state *os.ProcessState) *ExitError {
	e := &ExitError{Name: name, Code: state.ExitCode()}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		e.Signal = ws.Signal()
	}
	return e
}

func (e *ExitError) Error() string {
	if e.Signal != 0 {
		return fmt.Sprintf("process %s: killed by signal %d (%v)", e.Name, int(e.Signal), e.Signal)
	}
	return fmt.Sprintf("process %s: exit status %d", e.Name, e.Code)
}
