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

// main stops "start" on SIGINT or SIGTERM. SIGHUP (also sent when the
// terminal or ssh session closes) is caught so that it does not kill the
// node: "start" logs and ignores it, since reloading the configuration is
// not supported yet.
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	hangup := make(chan os.Signal, 1)
	signal.Notify(hangup, syscall.SIGHUP)
	code := run(ctx, hangup, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	signal.Stop(hangup)
	os.Exit(code)
}
