package process

import (
	"context"
	"io/fs"
	"maps"
	"path/filepath"
	"time"
)

// DefaultWatchInterval is how often a Watcher looks when given no
// interval.
const DefaultWatchInterval = time.Second

// Watcher watches directory trees for changes by polling them, with the
// standard library alone: a file or directory under one of them
// (recursively) created, removed, or modified (size, mode or
// modification time). A directory that cannot be read counts as empty:
// its appearing later is a change. Run is called at most once.
type Watcher struct {
	dirs []string
	last map[string]entry
}

// NewWatcher takes the first look at dirs, now: what changes after
// NewWatcher returns is a change for Run.
func NewWatcher(dirs []string) *Watcher {
	return &Watcher{dirs: dirs, last: snapshot(dirs)}
}

// Run looks every interval (zero: DefaultWatchInterval) and calls
// changed, on Run's goroutine, after each look that found a change. It
// returns when ctx ends.
func (w *Watcher) Run(ctx context.Context, interval time.Duration, changed func()) {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if now := snapshot(w.dirs); !maps.Equal(now, w.last) {
			w.last = now
			changed()
		}
	}
}

// entry is what a Watcher compares of a file.
type entry struct {
	size    int64
	mode    fs.FileMode
	modTime time.Time
}

// snapshot returns an entry for every file and directory under dirs.
// Errors (a file removed while walking, a directory that cannot be read)
// leave the file out.
func snapshot(dirs []string) map[string]entry {
	m := make(map[string]entry)
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if info, err := d.Info(); err == nil {
				m[path] = entry{size: info.Size(), mode: info.Mode(), modTime: info.ModTime()}
			}
			return nil
		})
	}
	return m
}
