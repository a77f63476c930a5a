package nodeproc

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// fakeEnv, when set, makes this test binary a fake junction node instead of
// running the tests: its value is the node's behaviour (see fakeNode).
const fakeEnv = "NODEPROC_FAKE_NODE"

// probeEnv is a variable the fake node logs in its "node started" line,
// for the tests of Options.Env.
const probeEnv = "NODEPROC_PROBE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeNode(mode, os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}

// fakeNode plays junction start --config FILE --logformat json: it logs two
// "listening" lines, "node started" (with its process ID as "pid") and
// "component ready", then what mode asks for, and exits at SIGTERM, with
// status 1 in mode "exit1" and 0 otherwise. Mode "early" exits 2 before "node started". A wrong
// invocation is logged as an ERROR.
func fakeNode(mode string, args []string) int {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM) // before "node started": a quick SIGTERM must not kill it
	if bad := checkInvocation(args); bad != "" {
		logLine("ERROR", "fake: "+bad)
	}
	logLine("INFO", "listening", "transport", "workers[0].transports[0]", "address", "127.0.0.1:1001")
	logLine("INFO", "listening", "transport", "workers[0].transports[1]", "address", "127.0.0.1:1002")
	if mode == "early" {
		logLine("ERROR", "config invalid")
		return 2
	}
	logLine("INFO", "node started", "pid", strconv.Itoa(os.Getpid()), probeEnv, os.Getenv(probeEnv))
	logLine("INFO", "component ready")
	switch mode {
	case "warn":
		logLine("WARN", "expected warning")
	case "error":
		logLine("ERROR", "expected warning")
	case "garbage":
		fmt.Fprintln(os.Stderr, "panic: boom")
	case "partial":
		fmt.Fprint(os.Stderr, `{"level":"INFO","msg":"unfinis`)
	}
	<-term
	if mode == "exit1" {
		return 1
	}
	return 0
}

// logLine writes one slog-style JSON line to stderr.
func logLine(level, msg string, attrs ...string) {
	r := map[string]string{"level": level, "msg": msg}
	for i := 0; i+1 < len(attrs); i += 2 {
		r[attrs[i]] = attrs[i+1]
	}
	b, _ := json.Marshal(r)
	_, _ = os.Stderr.Write(append(b, '\n'))
}

// checkInvocation says what is wrong with the arguments and working
// directory Start or StartIn gave, "" when nothing is.
func checkInvocation(args []string) string {
	switch {
	case len(args) == 3 && args[0] == "start" && args[1] == "--logformat" && args[2] == "json":
		return checkNodeDir()
	case len(args) != 5 || args[0] != "start" || args[1] != "--config" || args[3] != "--logformat" || args[4] != "json":
		return fmt.Sprintf("arguments %q", args)
	}
	cfg, err := os.Stat(args[2])
	if err != nil {
		return err.Error()
	}
	dir, err := os.Stat(filepath.Dir(args[2]))
	if err != nil {
		return err.Error()
	}
	wd, err := os.Stat(".")
	if err != nil || !os.SameFile(dir, wd) || cfg.IsDir() {
		return "not run in the config's directory"
	}
	return ""
}

// checkNodeDir says what is wrong with the working directory of StartIn
// (a node directory, whose .crossbar holds config.json), "" when nothing
// is.
func checkNodeDir() string {
	if _, err := os.Stat(filepath.Join(".crossbar", "config.json")); err != nil {
		return "not run in a node directory: " + err.Error()
	}
	return ""
}
