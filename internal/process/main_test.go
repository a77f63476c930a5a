//go:build linux

package process

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// parentEnv makes the test binary act as a node that starts a child and
// waits forever (see runParent).
const parentEnv = "JUNCTION_PROCESS_TEST_PARENT"

func TestMain(m *testing.M) {
	if os.Getenv(parentEnv) == "1" {
		runParent()
		return
	}
	os.Exit(m.Run())
}

// runParent starts a child, prints its PID and blocks until killed.
func runParent() {
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "exec sleep 600"}})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println(p.PID())
	select {}
}

// TestParentDeath: a child gets SIGKILL when the node that started it is
// killed outright.
func TestParentDeath(t *testing.T) {
	becomeSubreaper(t)
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentEnv+"=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		parent.Process.Kill()
		t.Fatalf("parent: %v", err)
	}
	child := pidOf(t, strings.TrimSpace(line))
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	assertKilled(t, child)
}
