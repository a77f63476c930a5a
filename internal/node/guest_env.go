package node

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/junction-wamp/junction/internal/config"
)

// processEnviron is the environment of a worker's process (a guest, a
// Python runner), as Crossbar makes it: the node's environment (all,
// none, or the names listed in "inherit"), then "vars" over it, then
// PYTHONUNBUFFERED=1 unless one of these set it.
func processEnviron(e config.ProcessEnv, environ []string) []string {
	vars := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if e.InheritAll || slices.Contains(e.Inherit, k) {
			vars[k] = v
		}
	}
	for k, v := range e.Vars {
		vars[k] = v
	}
	if _, ok := vars["PYTHONUNBUFFERED"]; !ok {
		vars["PYTHONUNBUFFERED"] = "1"
	}
	env := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, k+"="+vars[k])
	}
	return env
}

// findExecutable finds a guest's executable as Crossbar does: joined to
// the working directory first (an absolute one as it is), then on the
// node's PATH. The error says what was tried.
func findExecutable(exe, workdir string) (string, error) {
	path := exe
	if !filepath.IsAbs(exe) {
		path = filepath.Join(workdir, exe)
	}
	if isExecutable(path) {
		return path, nil
	}
	if filepath.IsAbs(exe) {
		return "", fmt.Errorf("%s is not an executable file", exe)
	}
	found, err := exec.LookPath(exe)
	if err == nil {
		return filepath.Abs(found)
	}
	if errors.Is(err, exec.ErrDot) {
		return "", fmt.Errorf("%q not found: %s is not an executable file, and PATH finds it only relative to the current directory", exe, path)
	}
	return "", fmt.Errorf("%q not found: %s is not an executable file, and it is not on PATH (%s)", exe, path, os.Getenv("PATH"))
}
