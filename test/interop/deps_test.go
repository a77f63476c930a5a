package interop_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pythonPath is the interpreter the Debian python3-* packages install into;
// the python3 first on the PATH may be another one without them.
const pythonPath = "/usr/bin/python3"

// installEnv names the environment variable that, set to "0", makes TestMain
// only check the dependencies instead of installing what is missing.
const installEnv = "JUNCTION_INTEROP_INSTALL"

// depsErr is why the client dependencies are not usable; set once by
// TestMain before any test runs, read-only afterwards.
var depsErr error

// ensureDeps runs scripts/install-test-deps.sh (with --check when installEnv
// is "0"). The script is idempotent and returns at once when everything is
// present.
func ensureDeps() error {
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "install-test-deps.sh"))
	if err != nil {
		return fmt.Errorf("interop: locate install script: %w", err)
	}
	args := []string{script}
	if os.Getenv(installEnv) == "0" {
		args = append(args, "--check")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("interop: client dependencies (autobahn-js, autobahn-python) are missing and %s failed (%w); "+
			"run scripts/install-test-deps.sh as root. Its output:\n%s", strings.Join(args, " "), err, out.String())
	}
	return nil
}

// requireDeps fails the test when the client dependencies are missing.
func requireDeps(t *testing.T) {
	t.Helper()
	if depsErr != nil {
		t.Fatal(depsErr)
	}
}
