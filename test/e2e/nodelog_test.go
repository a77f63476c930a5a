package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// logRecord is one JSON log line of the binary, decoded.
type logRecord map[string]any

// str returns the string attribute k, "" when absent.
func (r logRecord) str(k string) string {
	s, _ := r[k].(string)
	return s
}

// nodeLog is the binary's stdout and stderr (slog's JSON lines), kept for
// waiting on lines and for reports. Safe for concurrent use.
type nodeLog struct {
	mu      sync.Mutex
	partial []byte        // an incomplete last line
	lines   []string      // every complete line
	recs    []logRecord   // the lines that are JSON, in order
	changed chan struct{} // closed and replaced at each new line
}

func newNodeLog() *nodeLog { return &nodeLog{changed: make(chan struct{})} }

// Write takes the log, line by line.
func (l *nodeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		l.add(string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
}

// add records a line; mu must be held.
func (l *nodeLog) add(line string) {
	l.lines = append(l.lines, line)
	var r logRecord
	if json.Unmarshal([]byte(line), &r) == nil {
		l.recs = append(l.recs, r)
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

// count returns how many records match, and a channel closed at the next
// line.
func (l *nodeLog) count(match func(logRecord) bool) (int, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.recs {
		if match(r) {
			n++
		}
	}
	return n, l.changed
}

// wait blocks until at least n records match, or ctx ends.
func (l *nodeLog) wait(ctx context.Context, n int, match func(logRecord) bool) error {
	for {
		got, changed := l.count(match)
		if got >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%d matching log lines of %d: %w", got, n, ctx.Err())
		}
	}
}

// address is the address the listening line of transport logged, "".
func (l *nodeLog) address(transport string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.recs {
		if r.str("msg") == "listening" && r.str("transport") == transport {
			return r.str("address")
		}
	}
	return ""
}

// unexpected returns the lines that are neither JSON at level INFO or
// DEBUG nor a WARN whose message is in allowed: other warnings, errors, and
// anything else (a panic, a race report).
func (l *nodeLog) unexpected(allowed []string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var bad []string
	for _, line := range l.lines {
		var r logRecord
		if json.Unmarshal([]byte(line), &r) != nil {
			bad = append(bad, line)
			continue
		}
		switch lvl := r.str("level"); {
		case lvl == "INFO" || lvl == "DEBUG":
		case lvl == "WARN" && slices.Contains(allowed, r.str("msg")):
		default:
			bad = append(bad, line)
		}
	}
	if len(l.partial) > 0 {
		bad = append(bad, string(l.partial))
	}
	return bad
}

func (l *nodeLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n") + string(l.partial)
}

// msgIs matches records with message msg and, when attrs are given, those
// attribute values (key, value pairs).
func msgIs(msg string, attrs ...string) func(logRecord) bool {
	return func(r logRecord) bool {
		if r.str("msg") != msg {
			return false
		}
		for i := 0; i+1 < len(attrs); i += 2 {
			if r.str(attrs[i]) != attrs[i+1] {
				return false
			}
		}
		return true
	}
}
