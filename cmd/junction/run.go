package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // a config or start error
	exitUsage = 2
)

const usage = `usage:
  junction start   [--cbdir DIR] [--config FILE] [--loglevel debug|info|warn|error] [--logformat text|json]
  junction init    [--cbdir DIR]
  junction check   [--cbdir DIR]... [--config FILE]... [--summary] [--blockers] [DIR|FILE]...
  junction health  [--timeout DURATION] URL
  junction version  (or junction --version)
`

// env is what a command gets from its process.
type env struct {
	ctx context.Context // ends on SIGINT or SIGTERM
	// hangup gets SIGHUP, and every SIGINT or SIGTERM after the one that
	// ended ctx; nil for none.
	hangup    <-chan os.Signal
	stdout    io.Writer
	stderr    io.Writer
	lookupEnv func(string) (string, bool)
}

// command runs one subcommand with its arguments.
type command func(e *env, args []string) int

var commands = map[string]command{
	"start":   runStart,
	"init":    runInit,
	"check":   runCheck,
	"health":  runHealth,
	"version": runVersion,
}

// run runs the command line args (without the program name) and returns
// the exit status. ctx ending stops "start" gracefully; a SIGHUP on
// hangup reloads its configuration, another signal there during the stop
// stops it at once.
func run(ctx context.Context, hangup <-chan os.Signal, args []string, stdout, stderr io.Writer, lookupEnv func(string) (string, bool)) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "-version", "--version":
		name = "version"
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "junction: unknown command %q\n%s", args[0], usage)
		return exitUsage
	}
	return cmd(&env{ctx: ctx, hangup: hangup, stdout: stdout, stderr: stderr, lookupEnv: lookupEnv}, args[1:])
}

// flagSet returns the FlagSet of a command; its usage goes to stderr.
func flagSet(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: junction %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, which must be flags only; ok false means
// return code.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if code, ok := parseStatus(fs.Parse(args)); !ok {
		return code, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "junction %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return exitUsage, false
	}
	return exitOK, true
}

// parseStatus is the outcome of fs.Parse: ok false means return code
// (0 for -h, which printed the usage; 2 for a bad flag).
func parseStatus(err error) (code int, ok bool) {
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK, false
	case err != nil:
		return exitUsage, false
	}
	return exitOK, true
}
