package web

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/junction-wamp/junction/internal/httpsyntax"
	"github.com/junction-wamp/junction/internal/wsupgrade"
)

// The loop engine's parser of request heads. It is conservative: it
// accepts only the plainest proxied GET and HEAD requests, those whose
// head h1 would read (with its own parser or http.ReadRequest) as the
// same request and pass to the handler unchanged, and says "hand off" for
// anything else, so that h1 reads it and does its checks and answers
// (FuzzLoopRequest holds it to http.ReadRequest).

// maxLoopHead is the longest request head the loop engine serves itself;
// a longer one goes to h1.
const maxLoopHead = 8 << 10

// headVerdict is what parseLoopRequest makes of the bytes it is given.
type headVerdict int

const (
	headIncomplete headVerdict = iota // more bytes are needed to decide
	headServe                         // a head the loop serves: req holds it
	headHandOff                       // anything else: h1 reads it
)

// loopRequest is a request head the loop engine serves itself. The
// strings are in one string of the head.
type loopRequest struct {
	n          int    // the head's length, its blank line included
	method     string // GET or HEAD
	path       string // the target's path, escaped (as received)
	query      string // raw, without "?"
	forceQuery bool   // "?" with an empty query
	host       string
	fields     []field  // the fields but Host, in order, names canonical
	connection []string // the Connection field's lines
	te         []string // the TE field's lines
	xff        []string // the X-Forwarded-For field's lines
	close      bool     // Connection: close
}

// parseLoopRequest reads the request head at the start of b into req
// (whose fields slice it reuses) when it is one the loop serves:
//   - "GET" or "HEAD", an origin-form target whose path has only bytes
//     that need no escape and %-escapes, and whose query has only visible
//     ASCII but '#', "HTTP/1.1";
//   - the head complete within maxLoopHead bytes, every line ending in
//     CRLF, every field a token name, ":" and a value without control
//     characters (no obs-fold);
//   - exactly one Host, of the bytes of a name, an IPv4 or a bracketed
//     IPv6 address and a port;
//   - no Content-Length, Transfer-Encoding, Trailer, Upgrade, Expect or
//     Pragma field (the fields that give a request a body, change the
//     connection, or make net/http add a field).
//
// It returns headIncomplete while b could still become such a head, and
// headHandOff as soon as it cannot.
func parseLoopRequest(b []byte, req *loopRequest) headVerdict {
	if v := methodPrefix(b); v != headServe {
		return v
	}
	end, v := headLength(b)
	if v != headServe {
		return v
	}
	s := string(b[:end-2]) // the request line and the field lines, each with its CRLF
	line, fields, _ := strings.Cut(s, "\r\n")
	*req = loopRequest{n: end, fields: req.fields[:0]}
	if !req.parseLine(line) || !req.parseFields(fields) {
		return headHandOff
	}
	return headServe
}

// methodPrefix says whether b begins, or may begin, with "GET " or
// "HEAD ".
func methodPrefix(b []byte) headVerdict {
	for _, m := range [...]string{"GET ", "HEAD "} {
		n := min(len(b), len(m))
		if string(b[:n]) == m[:n] {
			if n < len(m) {
				return headIncomplete
			}
			return headServe
		}
	}
	return headHandOff
}

// headLength returns the length of the head at the start of b, its
// blank line included, when every line up to it ends in CRLF and it fits
// in maxLoopHead; headIncomplete when it may yet, headHandOff otherwise.
func headLength(b []byte) (int, headVerdict) {
	window := b[:min(len(b), maxLoopHead)]
	for i := 0; ; {
		j := bytes.IndexByte(window[i:], '\n')
		if j < 0 {
			if len(b) >= maxLoopHead {
				return 0, headHandOff
			}
			return 0, headIncomplete
		}
		line := window[i : i+j+1]
		if j == 0 || line[j-1] != '\r' || bytes.IndexByte(line[:j-1], '\r') >= 0 {
			return 0, headHandOff // a bare LF or CR
		}
		i += j + 1
		if j == 1 { // the blank line
			if i == 2 {
				return 0, headHandOff // no request line
			}
			return i, headServe
		}
	}
}

// parseLine parses the request line.
func (req *loopRequest) parseLine(line string) bool {
	method, rest, _ := strings.Cut(line, " ")
	target, proto, ok := strings.Cut(rest, " ")
	if !ok || proto != "HTTP/1.1" || (method != http.MethodGet && method != http.MethodHead) {
		return false
	}
	path, query, hasQuery := strings.Cut(target, "?")
	if !plainEscapedPath(path) || !plainQuery(query) {
		return false
	}
	req.method, req.path, req.query, req.forceQuery = method, path, query, hasQuery && query == ""
	return true
}

// plainEscapedPath reports whether path begins with "/" and has only
// bytes that need no escape and well-formed %-escapes: its escaped form,
// as url.URL.EscapedPath gives it, is itself.
func plainEscapedPath(path string) bool {
	if path == "" || path[0] != '/' {
		return false
	}
	for i := 0; i < len(path); i++ {
		switch b := path[i]; {
		case httpsyntax.PlainPathByte(b):
		case b == '%' && i+2 < len(path) && isHex(path[i+1]) && isHex(path[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

// plainQuery reports whether query has only visible ASCII but '#'.
func plainQuery(query string) bool {
	for i := 0; i < len(query); i++ {
		if b := query[i]; b <= ' ' || b >= 0x7f || b == '#' {
			return false
		}
	}
	return true
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// parseFields parses the field lines, each ending in CRLF.
func (req *loopRequest) parseFields(fields string) bool {
	hosts := 0
	for fields != "" {
		line, rest, _ := strings.Cut(fields, "\r\n")
		fields = rest
		name, value, ok := strings.Cut(line, ":")
		if !ok || !httpsyntax.ValidFieldName(name) {
			return false
		}
		value = httpsyntax.TrimBlanks(value)
		if !httpsyntax.ValidFieldValue(value) {
			return false
		}
		key := http.CanonicalHeaderKey(name) // name itself when canonical already
		switch key {
		case "Host":
			hosts++
			req.host = value
			continue
		case "Content-Length", "Transfer-Encoding", "Trailer", "Upgrade", "Expect", "Pragma":
			return false
		case "Connection":
			req.connection = append(req.connection, value)
		case "Te":
			req.te = append(req.te, value)
		case "X-Forwarded-For":
			req.xff = append(req.xff, value)
		}
		req.fields = append(req.fields, field{key, value})
	}
	req.close = wsupgrade.HasToken(req.connection, "close")
	return hosts == 1 && plainHost(req.host)
}

// plainHost reports whether h is a non-empty host of the bytes of a
// name, an IPv4 or a bracketed IPv6 address and a port (stricter than
// the servers' check, which allows sub-delimiters and escapes).
func plainHost(h string) bool {
	if h == "" {
		return false
	}
	for i := 0; i < len(h); i++ {
		b := h[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("-._:[]", b) >= 0) {
			return false
		}
	}
	return true
}
