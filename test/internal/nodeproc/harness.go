package nodeproc

import (
	"fmt"
	"os"
	"testing"
)

// Harness is what a test package's TestMain prepares once for all its
// tests: the junction binary and the client dependencies, or why they are
// not usable. Set by Prepare and read-only afterwards, so safe for
// concurrent use by the tests.
type Harness struct {
	Binary   string // the junction binary; "" when BuildErr is set
	BuildErr error  // why the binary could not be built
	DepsErr  error  // why the client dependencies are not usable
	cleanup  func()
}

// Prepare runs EnsureDeps and Build(RaceEnabled). It never fails by
// itself: each test says what it needs (RequireBinary, RequireDeps) and
// fails with the reason. Call Close once the tests have run.
func Prepare() *Harness {
	h := &Harness{DepsErr: EnsureDeps()}
	h.Binary, h.cleanup, h.BuildErr = Build(RaceEnabled)
	return h
}

// Main is the TestMain of a package whose tests run the binary: it fills
// h by Prepare, runs the tests, checks with leaks when they passed (a
// goroutine leak check such as goleak.Find; nil for none), removes the
// binary and exits with the tests' status, or 1 when leaks failed.
func Main(m *testing.M, h *Harness, leaks func() error) {
	*h = *Prepare()
	code := m.Run()
	if code == 0 && leaks != nil {
		if err := leaks(); err != nil {
			fmt.Fprintf(os.Stderr, "nodeproc: leaks after a successful test run: %v\n", err)
			code = 1
		}
	}
	h.Close()
	os.Exit(code)
}

// Close removes the binary.
func (h *Harness) Close() {
	if h.cleanup != nil {
		h.cleanup()
	}
}

// RequireBinary fails the test when the binary could not be built.
func (h *Harness) RequireBinary(t testing.TB) {
	t.Helper()
	if h.BuildErr != nil {
		t.Fatal(h.BuildErr)
	}
}

// RequireDeps fails the test when the client dependencies are missing.
func (h *Harness) RequireDeps(t testing.TB) {
	t.Helper()
	if h.DepsErr != nil {
		t.Fatal(h.DepsErr)
	}
}

// Start is RequireBinary, then Start with the binary.
func (h *Harness) Start(t testing.TB, configPath string, opts Options) *Node {
	t.Helper()
	h.RequireBinary(t)
	return Start(t, h.Binary, configPath, opts)
}

// StartAll is RequireBinary, then StartAll with the binary.
func (h *Harness) StartAll(t testing.TB, configPaths []string, opts []Options) []*Node {
	t.Helper()
	h.RequireBinary(t)
	return StartAll(t, h.Binary, configPaths, opts)
}

// StartIn is RequireBinary, then StartIn with the binary.
func (h *Harness) StartIn(t testing.TB, dir string, opts Options) *Node {
	t.Helper()
	h.RequireBinary(t)
	return StartIn(t, h.Binary, dir, opts)
}

// TryStartIn is RequireBinary, then TryStartIn with the binary.
func (h *Harness) TryStartIn(t testing.TB, dir string, opts Options) (*Node, error) {
	t.Helper()
	h.RequireBinary(t)
	return TryStartIn(t, h.Binary, dir, opts)
}
