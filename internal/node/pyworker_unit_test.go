package node

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/config"
)

func TestWithPythonPath(t *testing.T) {
	tests := []struct {
		env, dirs, want []string
	}{
		{[]string{"A=1"}, nil, []string{"A=1"}},
		{[]string{"A=1"}, []string{"/p", "/q"}, []string{"A=1", "PYTHONPATH=/p:/q"}},
		{[]string{"PYTHONPATH=/old", "B=2"}, []string{"/p"}, []string{"PYTHONPATH=/p:/old", "B=2"}},
		{[]string{"PYTHONPATH="}, []string{"/p"}, []string{"PYTHONPATH=/p"}},
	}
	for _, tt := range tests {
		if got := withPythonPath(slices.Clone(tt.env), tt.dirs); !slices.Equal(got, tt.want) {
			t.Errorf("withPythonPath(%q, %q) = %q, want %q", tt.env, tt.dirs, got, tt.want)
		}
	}
}

func TestRestartDelay(t *testing.T) {
	want := []time.Duration{0, 0, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second,
		8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for n, w := range want {
		if got := restartDelay(n); got != w {
			t.Errorf("restartDelay(%d) = %v, want %v", n, got, w)
		}
	}
	if got := restartDelay(200); got != 30*time.Second {
		t.Errorf("restartDelay(200) = %v, want the cap", got)
	}
}

// TestShutdownPolicy: Crossbar's check_for_shutdown, trigger by trigger.
func TestShutdownPolicy(t *testing.T) {
	failed := errors.New("killed")
	tests := []struct {
		name     string
		triggers []string
		workers  int
		exits    []error // the workers' exits in turn
		want     []string
	}{
		{"worker exit", []string{config.ShutdownOnWorkerExit}, 2, []error{nil}, []string{config.ShutdownOnWorkerExit}},
		{"with error, clean", []string{config.ShutdownOnWorkerExitWithError}, 2, []error{nil, failed}, []string{"", config.ShutdownOnWorkerExitWithError}},
		{"last worker", []string{config.ShutdownOnLastWorkerExit}, 2, []error{failed, nil}, []string{"", config.ShutdownOnLastWorkerExit}},
		{"requested only", []string{config.ShutdownOnShutdownRequested}, 1, []error{failed}, []string{""}},
		{"none", nil, 1, []error{failed}, []string{""}},
		{"all, first wins", []string{config.ShutdownOnLastWorkerExit, config.ShutdownOnWorkerExitWithError, config.ShutdownOnWorkerExit}, 1,
			[]error{failed}, []string{config.ShutdownOnWorkerExit}},
		{"decided once", []string{config.ShutdownOnWorkerExit}, 3, []error{nil, failed}, []string{config.ShutdownOnWorkerExit, ""}},
	}
	for _, tt := range tests {
		p := newShutdownPolicy(tt.triggers, tt.workers)
		for i, err := range tt.exits {
			if got := p.exit(workerExit{path: fmt.Sprintf("workers[%d]", i), err: err}); got != tt.want[i] {
				t.Errorf("%s: exit %d gave %q, want %q", tt.name, i, got, tt.want[i])
			}
		}
		decided := slices.ContainsFunc(tt.want, func(s string) bool { return s != "" })
		select {
		case <-p.requested:
			if !decided {
				t.Errorf("%s: requested without a trigger", tt.name)
			}
		default:
			if decided {
				t.Errorf("%s: a trigger applied but requested is open", tt.name)
			}
		}
	}
}
