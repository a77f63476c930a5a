package bench

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// startRouterChild builds and starts the router process of the
// idle-memory measurements (package idlerouter) and returns it with its
// WebSocket and RawSocket addresses; the child exits when the test ends.
// The returned function sends it a command (see idlerouter) and returns
// its answer.
func startRouterChild(tb testing.TB) (*exec.Cmd, [2]string, func(string) string) {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "idlerouter")
	if out, err := exec.Command("go", "build", "-o", bin, "./idlerouter").CombinedOutput(); err != nil {
		tb.Fatalf("go build idlerouter: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { stdin.Close(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	line, err := out.ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 2 {
		tb.Fatalf("router child: %q, %v", line, err)
	}
	ask := func(cmd string) string {
		if _, err := stdin.Write([]byte(cmd + "\n")); err != nil {
			return err.Error()
		}
		s, err := out.ReadString('\n')
		if err != nil {
			return err.Error()
		}
		return strings.TrimSpace(s)
	}
	return cmd, [2]string{f[0], f[1]}, ask
}
