// Command junction is the Junction WAMP router:
//
//	junction start  [--cbdir DIR] [--config FILE] [--loglevel debug|info|warn|error] [--logformat text|json]
//	junction init   [--cbdir DIR]
//	junction check  [--cbdir DIR] [--config FILE]
//	junction version
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	os.Exit(code)
}
