package nodeproc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModuleRoot checks that the module root holds go.mod and this
// package's directory.
func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Errorf("ModuleRoot() = %s without go.mod: %v", root, err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if rel, err := filepath.Rel(root, wd); err != nil || rel != filepath.Join("test", "internal", "nodeproc") {
		t.Errorf("ModuleRoot() = %s, want the module holding %s", root, wd)
	}
}

func TestTransport(t *testing.T) {
	if got, want := Transport(1, 12), "workers[1].transports[12]"; got != want {
		t.Errorf("Transport(1, 12) = %q, want %q", got, want)
	}
}

// TestBuildFails checks that a build error carries the go command, with
// -race exactly when asked for, and its output.
func TestBuildFails(t *testing.T) {
	t.Setenv("GOFLAGS", "-nonexistentflag") // go build fails at once
	for _, race := range []bool{false, true} {
		bin, cleanup, err := Build(race)
		cleanup()
		if err == nil || bin != "" {
			t.Fatalf("Build(%v) = %q, %v; want an error", race, bin, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "nonexistentflag") {
			t.Errorf("Build(%v): error %q without go's output", race, msg)
		}
		if got := strings.Contains(msg, " -race ./cmd/junction"); got != race {
			t.Errorf("Build(%v): error %q, want -race only with race", race, msg)
		}
	}
}
