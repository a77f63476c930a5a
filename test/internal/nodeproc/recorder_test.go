package nodeproc

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that records failures instead of reporting
// them, so that a test can check that nodeproc fails a test, and why. The
// methods nodeproc does not call go to the real test (TempDir). Safe for
// concurrent use.
type recorder struct {
	testing.TB

	mu       sync.Mutex
	failed   bool     // mu must be held
	errors   []string // mu must be held
	logs     []string // mu must be held
	cleanups []func() // mu must be held
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// Fatalf records the failure and ends the goroutine, as testing does.
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// Fatal records the failure and ends the goroutine, as testing does.
func (r *recorder) Fatal(args ...any) {
	r.Errorf("%s", fmt.Sprint(args...))
	runtime.Goexit()
}

func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// run runs body as a test on its own goroutine (Fatalf ends it), then the
// cleanups, last registered first.
func (r *recorder) run(body func(t testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		body(r)
	}()
	<-done
	r.mu.Lock()
	cleanups := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}

func (r *recorder) errorText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errors, "\n")
}

func (r *recorder) logText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.logs, "\n")
}
