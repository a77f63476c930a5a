package nodeproc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// InstallEnv names the environment variable that, set to "0", makes
// [EnsureDeps] only check the dependencies instead of installing what is
// missing.
const InstallEnv = "JUNCTION_INTEROP_INSTALL"

// depsTimeout bounds the install script (apt and npm on a fresh machine).
const depsTimeout = 10 * time.Minute

// EnsureDeps runs scripts/install-test-deps.sh of the module root (with
// --check when [InstallEnv] is "0"): autobahn-python for /usr/bin/python3,
// node and autobahn-js in test/interop/js/node_modules, and curl. The
// script is idempotent and returns at once when everything is present. The
// error carries the script's output.
func EnsureDeps() error {
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	args := []string{filepath.Join(root, "scripts", "install-test-deps.sh")}
	if os.Getenv(InstallEnv) == "0" {
		args = append(args, "--check")
	}
	if out, err := runCommand("", depsTimeout, "bash", args...); err != nil {
		return fmt.Errorf("nodeproc: test dependencies (autobahn-js, autobahn-python, curl, chromium) are missing and %s failed (%w); "+
			"run scripts/install-test-deps.sh as root. Its output:\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}
