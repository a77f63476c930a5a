package main

import (
	"fmt"
	"io"

	"github.com/junction-wamp/junction/internal/node"
)

// runVersion is "junction version" and "junction --version".
func runVersion(e *env, args []string) int {
	fs := flagSet(e, "version", "")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	writeVersion(e.stdout, node.ReadBuild())
	return exitOK
}

// writeVersion writes b: "junction VERSION" on the first line (scripts
// read that), then one "key: value" line per detail.
func writeVersion(w io.Writer, b node.Build) {
	commit := orUnknown(b.Commit)
	if b.Modified {
		commit += " (modified)"
	}
	if b.CommitTime != "" {
		commit += ", committed " + b.CommitTime
	}
	fmt.Fprintf(w, "junction %s\ncommit:   %s\nbuilt:    %s\ngo:       %s\nplatform: %s\n",
		b.Version, commit, orUnknown(b.Date), b.GoVersion, b.Platform)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
