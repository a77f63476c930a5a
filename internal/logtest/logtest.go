// Package logtest captures what a slog logger writes, for tests that check
// log lines: each record is decoded from the JSON handler's output, so a
// test sees the attributes as an operator's log shipper would.
package logtest

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// Log is a JSON log sink, safe for concurrent use. The zero value is
// empty and ready.
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p; the handler writes one record per call.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// Logger returns a logger writing records at level and above to l.
func (l *Log) Logger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: level}))
}

// Records returns every record written so far, decoded: "level", "msg" and
// the attributes (a number is a float64).
func (l *Log) Records(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(l.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

// Lines returns the records whose message is msg.
func (l *Log) Lines(t testing.TB, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, rec := range l.Records(t) {
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// String returns everything written so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
