package nodeproc

import (
	"context"
	"os/exec"
	"time"
)

// runCommand runs name with args in dir ("" for the working directory),
// killed after timeout, and returns its stdout and stderr together.
func runCommand(dir string, timeout time.Duration, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}
