package nodeproc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// BuildTimeout bounds the go build of [Build].
const BuildTimeout = 5 * time.Minute

// ModuleRoot is the nearest directory at or above the working directory
// that holds go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("nodeproc: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("nodeproc: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// Build builds ./cmd/junction of the module root into a new temporary
// directory, with -race when race is set, and returns the binary's path
// and a cleanup that removes the directory. cleanup is never nil (a no-op
// when Build fails); call it once no node runs any more. The error carries
// the go command's output.
func Build(race bool) (binary string, cleanup func(), err error) {
	cleanup = func() {}
	root, err := ModuleRoot()
	if err != nil {
		return "", cleanup, err
	}
	dir, err := os.MkdirTemp("", "junction-build-")
	if err != nil {
		return "", cleanup, fmt.Errorf("nodeproc: %w", err)
	}
	binary = filepath.Join(dir, "junction")
	if err := goBuild(root, binary, race); err != nil {
		_ = os.RemoveAll(dir)
		return "", cleanup, err
	}
	return binary, func() { _ = os.RemoveAll(dir) }, nil
}

// goBuild runs go build -o binary [-race] ./cmd/junction in root.
func goBuild(root, binary string, race bool) error {
	args := []string{"build", "-o", binary}
	if race {
		args = append(args, "-race")
	}
	args = append(args, "./cmd/junction")
	if out, err := runCommand(root, BuildTimeout, "go", args...); err != nil {
		return fmt.Errorf("nodeproc: go %s in %s: %w\n%s", strings.Join(args, " "), root, err, out)
	}
	return nil
}
