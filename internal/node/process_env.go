package node

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/junction-wamp/junction/internal/config"
)

// processEnviron is the environment of a worker's process, as Crossbar's
// create_process_env makes it from "options.env": the node's environment
// (environ), whole or only the variables named in "inherit", then "vars"
// over it, then PYTHONUNBUFFERED=1 unless one of those set it (to anything,
// even "").
func processEnviron(e config.ProcessEnv, environ []string) []string {
	vars := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && (e.InheritAll || slices.Contains(e.Inherit, k)) {
			vars[k] = v
		}
	}
	for k, v := range e.Vars {
		vars[k] = v
	}
	if _, ok := vars["PYTHONUNBUFFERED"]; !ok {
		vars["PYTHONUNBUFFERED"] = "1"
	}
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
}

// withPythonPath puts dirs (absolute) before the PYTHONPATH of env, as
// Crossbar puts "options.pythonpath" before its own search path.
func withPythonPath(env []string, dirs []string) []string {
	if len(dirs) == 0 {
		return env
	}
	path := strings.Join(dirs, string(os.PathListSeparator))
	for i, kv := range env {
		if old, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			if old != "" {
				path += string(os.PathListSeparator) + old
			}
			return slices.Concat(env[:i], []string{"PYTHONPATH=" + path}, env[i+1:])
		}
	}
	return append(env, "PYTHONPATH="+path)
}

// pythonPaths resolves "options.pythonpath" against the node directory.
func (b *builder) pythonPaths(dirs []string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = filepath.Clean(b.resolve(d))
	}
	return out
}
