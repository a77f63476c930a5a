//go:build soak

package soak

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/junction-wamp/junction/test/internal/nodeproc"
	"go.uber.org/goleak"
)

// binary is the junction binary every scenario runs; buildErr says why
// there is none.
var (
	binary   string
	buildErr error
)

// TestMain builds the junction binary once (with -race when the tests run
// with it), unless -short skips every scenario; after the tests, no
// goroutine may be left.
func TestMain(m *testing.M) {
	flag.Parse()
	cleanup := func() {}
	if !testing.Short() {
		binary, cleanup, buildErr = nodeproc.Build(nodeproc.RaceEnabled)
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "soak: leaks after a successful run: %v\n", err)
			code = 1
		}
	}
	cleanup()
	os.Exit(code)
}
