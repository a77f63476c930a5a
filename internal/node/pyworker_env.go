package node

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

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
