package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"syscall"
	"time"

	"github.com/junction-wamp/junction/internal/node"
)

// stopTimeout bounds the graceful stop after SIGINT or SIGTERM.
const stopTimeout = 10 * time.Second

// reloadTimeout bounds the start and stop of the path services a reload
// replaces.
const reloadTimeout = 10 * time.Second

// runStart runs the node until e.ctx ends (a signal), then stops it
// within stopTimeout.
func runStart(e *env, args []string) int {
	fs := flagSet(e, "start", "[--cbdir DIR] [--config FILE] [--loglevel debug|info|warn|error] [--logformat text|json]")
	var cf configFlags
	cf.register(fs)
	level := fs.String("loglevel", "info", "log level: debug, info, warn or error")
	format := fs.String("logformat", "text", "log format: text or json")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	cf.resolveDir(e.lookupEnv)
	log, err := newLogger(e.stderr, *level, *format)
	if err != nil {
		fmt.Fprintf(e.stderr, "junction start: %v\n", err)
		fs.Usage()
		return exitUsage
	}
	n, code := buildNode(e, &cf, log)
	if n == nil {
		return code
	}
	stopGC, tuned := tuneGC(e.lookupEnv, minHeapGoal)
	defer stopGC()
	log.Debug("garbage collector", "min_heap_goal", minHeapGoal, "tuned", tuned)
	if err := n.Start(e.ctx); err != nil {
		log.Error("start failed", "err", err)
		return exitError
	}
	log.Info("node started", "version", node.BuildVersion())
	code = waitStop(e, &cf, n, log)
	log.Info("shutting down", "timeout", stopTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	stopped := make(chan struct{})
	defer close(stopped)
	go stopAtOnce(e, log, cancel, stopped)
	if err := n.Stop(ctx); err != nil {
		log.Error("stop", "err", err)
		return exitError
	}
	return code
}

// waitStop waits until e.ctx ends (SIGINT or SIGTERM), or until the node
// decides to stop by itself (a worker exited and a controller shutdown
// trigger applies), and returns the exit status: an error when a
// worker's failure stopped the node. Each SIGHUP meanwhile reloads the
// configuration (see reload); it never kills the node (a closed terminal
// or ssh session sends it too).
func waitStop(e *env, cf *configFlags, n *node.Node, log *slog.Logger) int {
	for {
		select {
		case <-e.ctx.Done():
			return exitOK
		case <-n.ShutdownRequested():
			if err := n.ShutdownErr(); err != nil {
				log.Error("a worker failed: the node stops", "err", err)
				return exitError
			}
			return exitOK
		case sig := <-e.hangup:
			if sig != syscall.SIGHUP {
				return exitOK // a stop signal that did not end e.ctx
			}
			reload(e, cf, n, log)
		}
	}
}

// stopAtOnce cancels the graceful stop when a second SIGINT or SIGTERM
// comes before it is over (until stopped is closed): what is left is
// then closed without waiting (node.Stop), child processes killed. A
// SIGHUP meanwhile is ignored.
func stopAtOnce(e *env, log *slog.Logger, cancel func(), stopped <-chan struct{}) {
	for {
		select {
		case sig := <-e.hangup:
			if sig == syscall.SIGHUP {
				log.Info("SIGHUP ignored: the node is stopping")
				continue
			}
			log.Warn("second signal: stopping at once", "signal", sig.String())
			cancel()
			return
		case <-stopped:
			return
		}
	}
}

// reload reads the configuration again, from where start read it, and
// applies it (node.Reload). An invalid one is refused, every problem
// logged, and the node keeps running what it runs. Otherwise each change
// applied is logged at info, each that needs a restart at warn, and a
// summary at info.
func reload(e *env, cf *configFlags, n *node.Node, log *slog.Logger) {
	log.Info("SIGHUP: reloading the configuration")
	l, err := cf.load(e.lookupEnv)
	for _, w := range l.warnings {
		log.Warn("config: "+w.Msg, "path", w.Path)
	}
	var rep node.ReloadReport
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), reloadTimeout)
		rep, err = n.Reload(ctx, l.cfg)
		cancel()
	}
	if err != nil {
		logConfigError(log, l.sourceOr(cf.file), err)
		log.Error("reload refused: the node keeps running its configuration unchanged", "source", l.sourceOr(cf.file))
		return
	}
	for _, c := range rep.Applied {
		log.Info("reload: applied", "path", c.Path, "change", c.What)
	}
	for _, c := range rep.Restart {
		log.Warn("reload: needs a restart, not applied", "path", c.Path, "change", c.What)
	}
	for _, c := range rep.Failed {
		log.Error("reload: failed, kept as it was", "path", c.Path, "err", c.What)
	}
	log.Info("configuration reloaded", "source", l.source,
		"applied", len(rep.Applied), "needs_restart", len(rep.Restart), "failed", len(rep.Failed))
}

// buildNode loads the config and builds the node; a nil node comes with
// the exit status.
func buildNode(e *env, cf *configFlags, log *slog.Logger) (*node.Node, int) {
	l, err := cf.load(e.lookupEnv)
	for _, w := range l.warnings {
		log.Warn("config: "+w.Msg, "path", w.Path)
	}
	if de, ok := errors.AsType[*dirError](err); ok {
		log.Error("config", "err", de.Error())
		return nil, exitUsage
	}
	if err != nil {
		logConfigError(log, l.sourceOr(cf.file), err)
		return nil, exitError
	}
	log.Info("config loaded", "source", l.source, "dir", l.dir)
	n, err := node.New(l.cfg, node.Options{Dir: l.dir, Logger: log})
	if err != nil {
		logConfigError(log, l.source, err)
		return nil, exitError
	}
	return n, exitOK
}

// newLogger returns the slog logger of --loglevel and --logformat.
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("bad --loglevel %q (want debug, info, warn or error)", level)
	}
	o := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return nil, fmt.Errorf("bad --logformat %q (want text or json)", format)
}
