//go:build linux

package process

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// record is one logged line.
type record struct {
	level  slog.Level
	msg    string
	name   string // the "worker" attribute
	stream string
}

// capture is a slog.Handler that keeps what is logged and passes each
// record on a channel.
type capture struct {
	mu    sync.Mutex
	recs  []record
	lines chan record
}

func newCapture() *capture { return &capture{lines: make(chan record, 1024)} }

func (c *capture) Enabled(context.Context, slog.Level) bool { return true }

func (c *capture) Handle(_ context.Context, r slog.Record) error {
	rec := record{level: r.Level, msg: r.Message}
	set := func(a slog.Attr) bool {
		switch a.Key {
		case "worker":
			rec.name = a.Value.String()
		case "stream":
			rec.stream = a.Value.String()
		}
		return true
	}
	r.Attrs(set)
	c.mu.Lock()
	c.recs = append(c.recs, rec)
	c.mu.Unlock()
	c.lines <- rec
	return nil
}

func (c *capture) WithAttrs(as []slog.Attr) slog.Handler {
	return &shared{c, as}
}

func (c *capture) WithGroup(string) slog.Handler { return c }

func (c *capture) records() []record {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]record{}, c.recs...)
}

// shared is a capture with more attributes, sharing its records.
type shared struct {
	*capture
	attrs []slog.Attr
}

func (s *shared) Handle(ctx context.Context, r slog.Record) error {
	r = r.Clone()
	r.AddAttrs(s.attrs...)
	return s.capture.Handle(ctx, r)
}

func (s *shared) WithAttrs(as []slog.Attr) slog.Handler {
	return &shared{s.capture, append(append([]slog.Attr{}, s.attrs...), as...)}
}

// next returns the next logged line, failing the test if none comes.
func (c *capture) next(t *testing.T) record {
	t.Helper()
	select {
	case r := <-c.lines:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("no line logged")
		return record{}
	}
}

// start starts spec, logging into a new capture, and stops it at the end
// of the test.
func start(t *testing.T, spec Spec) (*Process, *capture) {
	t.Helper()
	c := newCapture()
	spec.Logger = slog.New(c)
	if spec.Name == "" {
		spec.Name = "test"
	}
	p, err := Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(context.Background()) })
	return p, c
}

// sh is a spec running script with /bin/sh.
func sh(script string) Spec {
	return Spec{Path: "/bin/sh", Args: []string{"-c", script}}
}

// wait waits for p to end, failing the test if it does not.
func wait(t *testing.T, p *Process) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the process did not end")
	}
}
