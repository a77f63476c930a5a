package process

import (
	"context"
	"io/fs"
	"maps"
	"path/filepath"
	"time"
)

// DefaultWatchInterval is how often Watch looks when given no interval.
const DefaultWatchInterval = time.Second

// Watch calls changed, on its own goroutine, each time a file or
// directory under one of dirs (recursively) has been created, removed,
// or modified (size, mode or modification time) since it last looked.
// It polls every interval (zero: DefaultWatchInterval), with the
// standard library alone, and returns when ctx ends. A directory that
// cannot be read counts as empty: its appearing later is a change.
func Watch(ctx context.Context, dirs []string, interval time.Duration, changed func()) {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	last := snapshot(dirs)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := snapshot(dirs)
		if !maps.Equal(now, last) {
			last = now
			changed()
		}
	}
}

// entry is what Watch compares of a file.
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
