// Package dotsegment finds, in a URL path about to be sent to an upstream
// server, the segments that the upstream could resolve as "." or ".."
// where the sender sees none, so that a request cannot climb out of the
// upstream path it is confined to. Servers differ in what they take for a
// dot segment: Tomcat and Spring drop ";" path parameters first ("..;x"
// is ".."), some decode the path again, leniently, keeping invalid
// escapes as they are ("%2e%2e;%" is "..;%"), and Windows servers and
// some frameworks split on a backslash as on a slash. Check takes all of
// them into account at once.
package dotsegment

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// What Check finds; each is wrapped with the segment as the server sees
// it.
var (
	// ErrDot: a "." or ".." segment as the path stands.
	ErrDot = errors.New("dotsegment: dot segment")
	// ErrParams: "." or ".." with ";" path parameters as the path stands
	// ("..;", "..;jsessionid=1").
	ErrParams = errors.New("dotsegment: dot segment with path parameters")
	// ErrEncoded: a dot segment (parameters or not), a slash or a
	// backslash that a further decoding of the path makes
	// ("%2e%2e", "%2f"): encoded twice or more on the wire.
	ErrEncoded = errors.New("dotsegment: dot segment, slash or backslash encoded more than once")
	// ErrTooDeep: a segment still changes after MaxDecodes further
	// decodings; it is refused rather than decoded on.
	ErrTooDeep = errors.New("dotsegment: still changing after the last decoding")
)

// MaxDecodes is how many times Check decodes each segment further: an
// upstream that decodes two or three times more than it should is seen
// through; a segment still changing after that is refused (ErrTooDeep).
const MaxDecodes = 3

// Check reports the first segment of path that some upstream could read
// as a dot segment, or nil. path is the path as the upstream's first
// decoding gives it: a request's URL.Path, or one escaped segment decoded
// once. Its segments are split on "/" and on "\"; a segment is a dot
// segment when what comes before its first ";" is "." or "..". Each
// segment is then decoded leniently (valid "%XX" escapes decoded, any
// other "%" kept) up to MaxDecodes times, and refused when a decoding
// makes a dot segment, a slash or a backslash (ErrEncoded), or still
// changes it after the last (ErrTooDeep). A slash encoded twice
// ("%252f") is refused although it climbs nowhere by itself: no client
// that means a name sends one, and where it splits the path depends on
// the upstream.
//
// Names that only contain dots or parameters ("...", "..x", "a;b",
// "x;y=..") pass. Check allocates only when a segment has an escape.
func Check(path string) error {
	start := 0
	for i := 0; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' && path[i] != '\\' {
			continue
		}
		if err := checkSegment(path[start:i]); err != nil {
			return err
		}
		start = i + 1
	}
	return nil
}

// checkSegment checks one segment as it stands, then as each further
// decoding makes it.
func checkSegment(seg string) error {
	if name, _, params := strings.Cut(seg, ";"); isDot(name) {
		if params {
			return fmt.Errorf("%w: %q", ErrParams, seg)
		}
		return fmt.Errorf("%w: %q", ErrDot, seg)
	}
	s := seg
	for range MaxDecodes {
		next := unescapeLenient(s)
		if next == s {
			return nil
		}
		if strings.ContainsAny(next, `/\`) || isDotLike(next) {
			return fmt.Errorf("%w: %q reads as %q", ErrEncoded, seg, next)
		}
		s = next
	}
	if unescapeLenient(s) != s {
		return fmt.Errorf("%w: %q", ErrTooDeep, seg)
	}
	return nil
}

func isDot(s string) bool { return s == "." || s == ".." }

// isDotLike reports whether s is "." or "..", with or without ";" path
// parameters.
func isDotLike(s string) bool {
	name, _, _ := strings.Cut(s, ";")
	return isDot(name)
}

// unescapeLenient decodes the "%XX" escapes of s that are valid and keeps
// everything else as it is, as a lenient server does.
func unescapeLenient(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	b := []byte(s[:i])
	for ; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if c, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b = append(b, byte(c))
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}
