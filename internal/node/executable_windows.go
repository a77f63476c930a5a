package node

import "os"

// isExecutable reports whether path is a file the node may execute:
// Windows has no execute permission bit, so any regular file.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
