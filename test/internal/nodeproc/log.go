package nodeproc

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Record is one JSON log line of the binary, decoded.
type Record map[string]any

// Attr returns the string attribute key, "" when it is absent or not a
// string.
func (r Record) Attr(key string) string {
	s, _ := r[key].(string)
	return s
}

// MsgIs matches records with message msg and, when attrs are given, those
// attribute values (key, value pairs).
func MsgIs(msg string, attrs ...string) func(Record) bool {
	return func(r Record) bool {
		if r.Attr("msg") != msg {
			return false
		}
		for i := 0; i+1 < len(attrs); i += 2 {
			if r.Attr(attrs[i]) != attrs[i+1] {
				return false
			}
		}
		return true
	}
}

// nodeLog is the binary's stdout and stderr (slog's JSON lines), kept for
// waiting on lines and for reports. Safe for concurrent use.
type nodeLog struct {
	mu      sync.Mutex
	partial []byte            // an incomplete last line; mu must be held
	lines   []string          // every complete line; mu must be held
	recs    []Record          // the lines that are JSON, in order; mu must be held
	addrs   map[string]string // "listening" address by transport; mu must be held
	changed chan struct{}     // closed and replaced at each new line; mu must be held
}

func newNodeLog() *nodeLog {
	return &nodeLog{addrs: map[string]string{}, changed: make(chan struct{})}
}

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
	var r Record
	if json.Unmarshal([]byte(line), &r) == nil {
		l.recs = append(l.recs, r)
		if r.Attr("msg") == "listening" {
			l.addrs[r.Attr("transport")] = r.Attr("address")
		}
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

// count returns how many records match, and a channel closed at the next
// line.
func (l *nodeLog) count(match func(Record) bool) (int, <-chan struct{}) {
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

// address is the address the "listening" line of transport logged, "" if
// none did.
func (l *nodeLog) address(transport string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.addrs[transport]
}

// addresses returns a copy of the addresses by transport.
func (l *nodeLog) addresses() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.addrs)
}

// unexpected returns the lines that are neither JSON at level INFO or
// DEBUG nor a WARN whose message is in allowed: other warnings, errors, and
// anything else (a panic, a race report, an unfinished last line).
func (l *nodeLog) unexpected(allowed []string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var bad []string
	for _, line := range l.lines {
		var r Record
		if json.Unmarshal([]byte(line), &r) != nil {
			bad = append(bad, line)
			continue
		}
		switch lvl := r.Attr("level"); {
		case lvl == "INFO" || lvl == "DEBUG":
		case lvl == "WARN" && slices.ContainsFunc(allowed, func(a string) bool { return allows(a, r.Attr("msg")) }):
		default:
			bad = append(bad, line)
		}
	}
	if len(l.partial) > 0 {
		bad = append(bad, string(l.partial))
	}
	return bad
}

// allows reports whether the allowed warning a is msg: the same text, or,
// when a ends in "*", a prefix of msg before that "*".
func allows(a, msg string) bool {
	if prefix, ok := strings.CutSuffix(a, "*"); ok {
		return strings.HasPrefix(msg, prefix)
	}
	return a == msg
}

func (l *nodeLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	all := l.lines
	if len(l.partial) > 0 {
		all = append(all[:len(all):len(all)], string(l.partial))
	}
	return strings.Join(all, "\n")
}
