package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/junction-wamp/junction/internal/node"
)

// checkSynopsis is the usage line of check.
const checkSynopsis = "[--cbdir DIR]... [--config FILE]... [--summary] [--blockers] [DIR|FILE]..."

// runCheck validates one config, or a fleet of them (see checkFleet):
// several --cbdir or --config, a directory or file argument, --summary or
// --blockers. With at most one --cbdir and one --config and nothing else,
// it is the single check, whose output and exit status are those of
// checkOne.
func runCheck(e *env, args []string) int {
	fs := flagSet(e, "check", checkSynopsis)
	var f checkFlags
	f.register(fs)
	if code, ok := parseInterleaved(fs, args, func(a string) { f.add(targetPath, a) }); !ok {
		return code
	}
	if !f.fleet() {
		return checkOne(e, f.single())
	}
	return checkFleet(e, f.list, f.summary, f.blockers)
}

// checkOne validates the config: every error at its JSON path, one per
// line, and the warnings; exit 1 if there is an error. A config that loads
// is then built as start builds it, without binding any listener, so that
// what only the build finds (a TLS file that does not load, a require_ip
// entry or component "extra" that does not parse, a component class not
// built in yet) fails check as it fails start, with the same text: every
// such problem, one per line, sorted by path. The build's warnings (a
// static directory that does not exist) follow the config's.
func checkOne(e *env, cf configFlags) int {
	cf.resolveDir(e.lookupEnv)
	l, err := cf.load(e.lookupEnv)
	if de, ok := errors.AsType[*dirError](err); ok {
		fmt.Fprintf(e.stderr, "junction check: %v\n", de)
		return exitUsage
	}
	if report(e.stdout, l, cf.file, err) != nil {
		return exitError
	}
	return exitOK
}

// report writes the check of one config on w: its warnings, then each
// problem or "ok: SOURCE", every line prefixed by the source. l and
// loadErr are what configFlags.load returned; name is the file asked for,
// for an error before the source is known. It returns the problem, nil
// when the config loads and builds.
func report(w io.Writer, l loaded, name string, loadErr error) error {
	for _, wn := range l.warnings {
		fmt.Fprintf(w, "%s: warning: %s\n", l.source, wn.String())
	}
	if loadErr != nil {
		printConfigError(w, l.sourceOr(name), loadErr)
		return loadErr
	}
	n, err := node.New(l.cfg, node.Options{Dir: l.dir})
	if err != nil {
		printConfigError(w, l.source, err)
		return err
	}
	for _, wn := range n.Warnings() {
		fmt.Fprintf(w, "%s: warning: %s\n", l.source, wn.String())
	}
	fmt.Fprintf(w, "ok: %s\n", l.source)
	return nil
}

// sourceOr is the config's source, or name when it could not be found.
func (l loaded) sourceOr(name string) string {
	if l.source != "" {
		return l.source
	}
	return name
}
