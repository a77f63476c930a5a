// Command loadgen drives a WAMP router over the wire for the base-vs-head
// runs of make bench (scripts/bench-base.sh): built once from the tree
// under test and pointed at each build's router in turn, it loads both
// alike. Every mode prints one JSON line on stdout with what it measured,
// and exits with status 1 when the run was not clean (a failed call, a
// call the callee did not serve, an event not delivered).
//
//	loadgen rpc    [flags]   a callee and a caller session; calls/s, p50, p99
//	loadgen fanout [flags]   subscribers and a publisher; events/s, drops
//	loadgen idle   [flags]   idle sessions; the router's RSS per session
//
// Common flags: -transport websocket|rawsocket, -addr HOST:PORT, -path
// (the WebSocket URL path), -serializer json|msgpack|cbor|ubjson, -realm.
// Run a mode with -h for its own flags.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// errUsage is returned for a command line loadgen does not understand.
var errUsage = errors.New("usage: loadgen rpc|fanout|idle [flags] (-h for a mode's flags)")

// run parses the mode and its flags, runs it and prints its result as one
// JSON line on out; stdin is what the rpc mode's -wait reads.
func run(args []string, stdin io.Reader, out io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	fs := flag.NewFlagSet("loadgen "+args[0], flag.ContinueOnError)
	var t target
	t.flags(fs)
	var measure func() (outcome, error)
	var hold *bool // rpc -wait: hold the sessions until stdin ends
	switch args[0] {
	case "rpc":
		var o rpcOptions
		o.flags(fs)
		hold = &o.wait
		measure = func() (outcome, error) { return runRPC(t, o, stdin, out) }
	case "fanout":
		var o fanoutOptions
		o.flags(fs)
		measure = func() (outcome, error) { return runFanout(t, o) }
	case "idle":
		var o idleOptions
		o.flags(fs)
		measure = func() (outcome, error) { return runIdle(t, o) }
	default:
		return errUsage
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil // -h: the flags were printed
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := t.check(); err != nil {
		return err
	}
	o, err := measure()
	if err != nil {
		return err
	}
	defer o.release()
	if err := json.NewEncoder(out).Encode(o.result); err != nil {
		return err
	}
	if hold != nil && *hold {
		// The sessions stay open (and silent) until the script has read
		// the result and stopped counting the router's system calls.
		if _, err := io.Copy(io.Discard, stdin); err != nil {
			return err
		}
	}
	return o.result.clean()
}

// outcome is what a mode measured, and how to end its sessions once the
// result is printed.
type outcome struct {
	result  interface{ clean() error }
	release func()
}
