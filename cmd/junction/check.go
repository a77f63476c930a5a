package main

import (
	"fmt"

	"github.com/junction-wamp/junction/internal/node"
)

// runCheck validates the config: every error at its JSON path, one per
// line, and the warnings; exit 1 if there is an error. A config that loads
// is then built as start builds it, without binding any listener, so that
// what only the build finds (a TLS file that does not load, a require_ip
// entry or component "extra" that does not parse, a component class not
// built in yet) fails check as it fails start, with the same text: every
// such problem, one per line, sorted by path. The build's warnings (a
// static directory that does not exist) follow the config's.
func runCheck(e *env, args []string) int {
	fs := flagSet(e, "check", "[--cbdir DIR] [--config FILE]")
	var cf configFlags
	cf.register(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	l, err := cf.load(e.lookupEnv)
	for _, w := range l.warnings {
		fmt.Fprintf(e.stdout, "%s: warning: %s\n", l.source, w.String())
	}
	if err != nil {
		printConfigError(e.stdout, l.sourceOr(cf.file), err)
		return exitError
	}
	n, err := node.New(l.cfg, node.Options{Dir: l.dir})
	if err != nil {
		printConfigError(e.stdout, l.source, err)
		return exitError
	}
	for _, w := range n.Warnings() {
		fmt.Fprintf(e.stdout, "%s: warning: %s\n", l.source, w.String())
	}
	fmt.Fprintf(e.stdout, "ok: %s\n", l.source)
	return exitOK
}

// sourceOr is the config's source, or name when it could not be found.
func (l loaded) sourceOr(name string) string {
	if l.source != "" {
		return l.source
	}
	return name
}
