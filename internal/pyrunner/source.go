package pyrunner

import (
	_ "embed"
	"encoding/json"
)

// Source is the runner's program, run by the interpreter from its stdin.
//
//go:embed runner.py
var Source []byte

// Settings are what a runner is told at start (its last argument).
type Settings struct {
	// Worker is the worker's JSON path ("workers[1]"), for messages.
	Worker string `json:"worker"`
	// CBDir is the node directory, absolute: the components get it as
	// extra["cbdir"] (the runner's working directory is set by whoever
	// starts it).
	CBDir string `json:"cbdir"`
	// StartDir is the directory the node was started from, absolute: the
	// runner's sys.path[0], as a Crossbar worker's.
	StartDir string `json:"startdir"`
	// Level is the lowest level of the log lines the runner sends: "debug"
	// or "info" (the default).
	Level string `json:"level"`
}

// Args are the interpreter's arguments for a runner with settings s:
// unbuffered output, the program from stdin (Source), then s.
func Args(s Settings) []string {
	b, _ := json.Marshal(s) // strings only: it cannot fail
	return []string{"-u", "-", string(b)}
}
