package bridge

import (
	"errors"
	"time"
)

var errTimestamp = errors.New("bridge: invalid timestamp")

// parseTimestamp parses a signature timestamp: UTC ISO-8601
// "YYYY-MM-DDTHH:MM:SS[.fraction]Z" with 0 to 9 fraction digits. Clients
// send 3 (autobahn, crossbarconnect, Ruby) or 6 (crossbarhttp, PHP) digits,
// and crossbarhttp3 none when the microseconds are 0.
func parseTimestamp(s string) (time.Time, error) {
	const base = len("2006-01-02T15:04:05")
	if len(s) < base+1 || s[len(s)-1] != 'Z' || !shape(s[:base], "dddd-dd-ddTdd:dd:dd") {
		return time.Time{}, errTimestamp
	}
	nsec, ok := fraction(s[base : len(s)-1])
	if !ok {
		return time.Time{}, errTimestamp
	}
	y, mo, d := digits(s[0:4]), digits(s[5:7]), digits(s[8:10])
	h, mi, sec := digits(s[11:13]), digits(s[14:16]), digits(s[17:19])
	if mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, errTimestamp
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, nsec, time.UTC)
	if t.Day() != d {
		return time.Time{}, errTimestamp // 31 April and the like
	}
	return t, nil
}

// shape reports whether s matches pattern, where 'd' stands for a digit and
// every other byte for itself.
func shape(s, pattern string) bool {
	if len(s) != len(pattern) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if pattern[i] == 'd' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != pattern[i] {
			return false
		}
	}
	return true
}

// fraction parses "" or "." followed by 1 to 9 digits into nanoseconds.
func fraction(s string) (int, bool) {
	if s == "" {
		return 0, true
	}
	if s[0] != '.' || len(s) < 2 || len(s) > 10 {
		return 0, false
	}
	n := 0
	for i := 1; i < 10; i++ {
		n *= 10
		if i < len(s) {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n += int(s[i] - '0')
		}
	}
	return n, true
}

// digits is the value of a string of ASCII digits (already checked).
func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
