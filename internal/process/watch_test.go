package process

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestWatch(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"create", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "new.js"), "x") }},
		{"create below", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "sub", "deep.js"), "x") }},
		{"modify", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "app.js"), "longer") }},
		{"touch", func(t *testing.T, dir string) {
			future := time.Unix(2e9, 0)
			if err := os.Chtimes(filepath.Join(dir, "app.js"), future, future); err != nil {
				t.Fatal(err)
			}
		}},
		{"remove", func(t *testing.T, dir string) { remove(t, filepath.Join(dir, "sub", "lib.js")) }},
		{"chmod", func(t *testing.T, dir string) {
			if err := os.Chmod(filepath.Join(dir, "app.js"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "app.js"), "x")
			write(t, filepath.Join(dir, "sub", "lib.js"), "x")
			synctest.Test(t, func(t *testing.T) {
				var n atomic.Int32
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				go NewWatcher([]string{dir}).Run(ctx, time.Second, func() { n.Add(1) })
				time.Sleep(3 * time.Second)
				synctest.Wait()
				if got := n.Load(); got != 0 {
					t.Fatalf("%d changes before any", got)
				}
				tt.change(t, dir)
				time.Sleep(time.Second)
				synctest.Wait()
				if got := n.Load(); got != 1 {
					t.Errorf("%d changes, want 1", got)
				}
				time.Sleep(3 * time.Second) // no more change: no more call
				synctest.Wait()
				if got := n.Load(); got != 1 {
					t.Errorf("%d changes after, want 1", got)
				}
			})
		})
	}
}

func TestWatchMissingDirectoryAppearing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "later")
	synctest.Test(t, func(t *testing.T) {
		called := make(chan struct{}, 10)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go NewWatcher([]string{dir}).Run(ctx, 0, func() { called <- struct{}{} })
		synctest.Wait()
		write(t, filepath.Join(dir, "a"), "x")
		time.Sleep(DefaultWatchInterval)
		synctest.Wait()
		if len(called) != 1 {
			t.Errorf("%d calls, want 1", len(called))
		}
	})
}

// TestWatchFirstLook: a change made after NewWatcher and before Run is
// a change.
func TestWatchFirstLook(t *testing.T) {
	dir := t.TempDir()
	w := NewWatcher([]string{dir})
	write(t, filepath.Join(dir, "a"), "x")
	synctest.Test(t, func(t *testing.T) {
		called := make(chan struct{}, 10)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go w.Run(ctx, time.Second, func() { called <- struct{}{} })
		time.Sleep(time.Second)
		synctest.Wait()
		if len(called) != 1 {
			t.Errorf("%d calls, want 1", len(called))
		}
	})
}

func TestWatchEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			NewWatcher([]string{t.TempDir()}).Run(ctx, time.Second, func() {})
			close(done)
		}()
		cancel()
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Error("Watch still running after its context ended")
		}
	})
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}
