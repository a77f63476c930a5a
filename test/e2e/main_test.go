// Package e2e_test proves the HTTP bridge end to end: the junction binary,
// started from a config file, serves curl-style HTTP requests that reach
// real WAMP clients (a Go client of internal/client and autobahn-js), and
// its REST components call and notify real HTTP servers, across a restart
// of the router they connect to. See README.md.
package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

const buildTimeout = 5 * time.Minute

// Set once by TestMain before any test runs, read-only afterwards:
// junctionPath is the binary built (or buildErr why not), depsErr why the
// client dependencies (autobahn-js, curl) are not usable.
var (
	junctionPath string
	buildErr     error
	depsErr      error
)

// TestMain installs the dependencies (scripts/install-test-deps.sh, quick
// when they are present) and builds the junction binary once; when either
// fails, every test that needs it fails with the reason.
func TestMain(m *testing.M) {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	depsErr = ensureDeps(root)
	dir, err := os.MkdirTemp("", "junction-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	junctionPath, buildErr = buildJunction(root, dir)
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// buildJunction builds cmd/junction into dir, with -race when this test
// binary has it, and returns the binary's path.
func buildJunction(root, dir string) (string, error) {
	bin := filepath.Join(dir, "junction")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "./cmd/junction")
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("e2e: go %s in %s: %w\n%s", strings.Join(args, " "), root, err, out)
	}
	return bin, nil
}

// moduleRoot is the nearest directory at or above the working directory
// that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("e2e: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("e2e: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// installEnv set to "0" makes TestMain only check the dependencies.
const installEnv = "JUNCTION_INTEROP_INSTALL"

// ensureDeps runs scripts/install-test-deps.sh (with --check when installEnv
// is "0"): autobahn-js in test/interop/js/node_modules, node, and curl.
func ensureDeps(root string) error {
	args := []string{filepath.Join(root, "scripts", "install-test-deps.sh")}
	if os.Getenv(installEnv) == "0" {
		args = append(args, "--check")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("e2e: test dependencies (autobahn-js, curl) are missing and %s failed (%w); "+
			"run scripts/install-test-deps.sh as root. Its output:\n%s", strings.Join(args, " "), err, out.String())
	}
	return nil
}

// requireBinary fails the test when the binary could not be built.
func requireBinary(t *testing.T) {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// requireDeps fails the test when the client dependencies are missing.
func requireDeps(t *testing.T) {
	t.Helper()
	if depsErr != nil {
		t.Fatal(depsErr)
	}
}
