// Command junction is the Junction WAMP router:
//
//	junction start  [--cbdir DIR] [--config FILE] [--loglevel debug|info|warn|error] [--logformat text|json]
//	junction init   [--cbdir DIR]
//	junction check  [--cbdir DIR]... [--config FILE]... [--summary] [--blockers] [DIR|FILE]...
//	junction version (or junction --version)
//
// See docs/commands.md for the configuration lookup and the exit statuses,
// and docs/configuration.md for the file format.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// main stops "start" on SIGINT or SIGTERM: the first ends the context
// (a graceful stop); SIGHUP (a reload, also sent when the terminal or ssh
// session closes, which must not kill the node) and every later SIGINT
// or SIGTERM (stop at once) go to the command's signal channel.
func main() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ctx, stop := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 4)
	go forwardSignals(sigs, stop, signals)
	code := run(ctx, signals, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	signal.Stop(sigs)
	stop()
	os.Exit(code)
}

// forwardSignals calls stop on the first SIGINT or SIGTERM from sigs and
// passes every other signal on to out (dropped when out is full: the
// command is busy with as many already). It runs until the process ends.
func forwardSignals(sigs <-chan os.Signal, stop func(), out chan<- os.Signal) {
	stopped := false
	for sig := range sigs {
		if sig != syscall.SIGHUP && !stopped {
			stopped = true
			stop()
			continue
		}
		select {
		case out <- sig:
		default:
		}
	}
}
