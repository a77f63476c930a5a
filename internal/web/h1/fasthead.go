package h1

import (
	"bufio"
	"bytes"
	"net/http"
	"net/url"
	"strings"

	"github.com/junction-wamp/junction/internal/httpsyntax"
)

// The engine's own parser for the common request head: a plain method,
// an origin-form target, HTTP/1.1 or 1.0, simple field lines, one valid
// Host, no Transfer-Encoding nor Trailer, at most one Content-Length. It reads the
// head from the bytes already buffered and gives the request that
// http.ReadRequest and checkRequest would give (FuzzRequestHead holds the
// two side by side); anything else, a head not yet whole in the buffer
// included, is left to them. It costs one string for the head (names and
// values are substrings of it), one backing array for the values, the
// header map, the URL and the request. A handler that keeps a name or a
// value keeps the head's string with it (at most the 4 KiB buffer).

// headEnd is the blank line that ends a head.
var headEnd = []byte("\r\n\r\n")

// parseCommonHead parses the request head buffered in br into req, a
// zero request, when it is of the common kind, and consumes it; false,
// with nothing consumed (and req to be zeroed before it is used again),
// otherwise.
func parseCommonHead(br *bufio.Reader, req *http.Request) bool {
	buf, _ := br.Peek(br.Buffered())
	end := bytes.Index(buf, headEnd)
	if end < 0 {
		return false
	}
	s := string(buf[:end+2]) // the request line and the field lines, each with its CRLF
	line, fields, _ := strings.Cut(s, "\r\n")
	if !parseRequestLine(req, line) || !parseFields(req, fields) {
		return false
	}
	if req.ContentLength > 0 {
		req.Body = &httpsyntax.LengthBody{R: br, N: req.ContentLength}
	} else {
		req.Body = http.NoBody
	}
	_, _ = br.Discard(end + len(headEnd))
	return true
}

// parseRequestLine parses "METHOD /target HTTP/1.x" of the common kind
// into req.
func parseRequestLine(req *http.Request, line string) bool {
	method, rest, _ := strings.Cut(line, " ")
	target, proto, ok := strings.Cut(rest, " ")
	if !ok || !commonMethod(method) || target == "" || target[0] != '/' {
		return false
	}
	req.Method, req.RequestURI, req.Proto, req.ProtoMajor = method, target, proto, 1
	switch proto {
	case "HTTP/1.1":
		req.ProtoMinor = 1
	case "HTTP/1.0":
	default:
		return false
	}
	for i := 0; i < len(target); i++ {
		if target[i] <= ' ' || target[i] >= 0x7f {
			return false
		}
	}
	req.URL = plainURL(target)
	if req.URL == nil {
		u, err := url.ParseRequestURI(target)
		if err != nil || u.Host != "" {
			return false
		}
		req.URL = u
	}
	return true
}

// plainURL returns the URL url.ParseRequestURI gives for a target whose
// path has only bytes that need no escape (see httpsyntax.PlainPathByte) and
// whose query, if any, has no '#': the path as it is, the query raw; nil
// for another target.
func plainURL(target string) *url.URL {
	path, query, hasQuery := strings.Cut(target, "?")
	for i := 0; i < len(path); i++ {
		if !httpsyntax.PlainPathByte(path[i]) {
			return nil
		}
	}
	if strings.IndexByte(query, '#') >= 0 {
		return nil
	}
	return &url.URL{Path: path, RawQuery: query, ForceQuery: hasQuery && query == ""}
}

func commonMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions, http.MethodPatch:
		return true
	}
	return false
}

// parseFields parses the field lines (each ending in CRLF) into
// req.Header and sets what net/http derives from them: Host, Close,
// ContentLength, the Cache-Control of a "Pragma: no-cache". False for a
// field out of the common kind, or one net/http would refuse.
func parseFields(req *http.Request, fields string) bool {
	n := strings.Count(fields, "\n") - 1 // the fields but Host, when the head is of the common kind
	if n < 0 {
		return false
	}
	h := make(http.Header, n)
	values := make([]string, n)
	var seen seenFields
	i := 0
	for fields != "" {
		nl := strings.IndexByte(fields, '\n')
		if nl < 1 || fields[nl-1] != '\r' {
			return false
		}
		line := fields[:nl-1]
		fields = fields[nl+1:]
		name, value, _ := strings.Cut(line, ":")
		key, ok := fieldKey(name)
		if !ok || len(name) == len(line) {
			return false
		}
		value = httpsyntax.TrimBlanks(value)
		if !httpsyntax.ValidFieldValue(value) {
			return false
		}
		inHeader, ok := seen.take(req, key, value)
		if !ok {
			return false
		}
		if !inHeader {
			continue
		}
		if vv := h[key]; vv != nil || i == n {
			h[key] = append(vv, value)
		} else {
			values[i] = value
			h[key] = values[i : i+1 : i+1]
			i++
		}
	}
	if seen.hosts != 1 || !validHost(req.Host) {
		return false
	}
	req.Header = h
	fixPragma(h)
	req.Close = wantsClose(req.ProtoMinor, h["Connection"])
	return true
}

// seenFields counts the fields a common head has at most one of.
type seenFields struct{ hosts, lengths int }

// take sets what http.ReadRequest derives from the field key (Host,
// which it keeps out of the header, and Content-Length); false for a
// field out of the common kind: a second Content-Length, one not of
// plain digits, Transfer-Encoding, Trailer.
func (s *seenFields) take(req *http.Request, key, value string) (inHeader, ok bool) {
	switch key {
	case "Host":
		s.hosts++
		req.Host = value
		return false, true
	case "Content-Length":
		s.lengths++
		req.ContentLength = httpsyntax.PlainLength(value)
		return true, s.lengths == 1 && req.ContentLength >= 0
	case "Transfer-Encoding", "Trailer":
		return false, false
	}
	return true, true
}

// fieldKey returns the canonical form of a field name, as
// http.CanonicalHeaderKey gives it (name itself when it is canonical
// already, as most are); false for a name that is no token.
func fieldKey(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	upper, canonical := true, true
	for i := 0; i < len(name); i++ {
		b := name[i]
		if !httpsyntax.IsTokenByte(b) {
			return "", false
		}
		if upper && 'a' <= b && b <= 'z' || !upper && 'A' <= b && b <= 'Z' {
			canonical = false
		}
		upper = b == '-'
	}
	if canonical {
		return name, true
	}
	return http.CanonicalHeaderKey(name), true
}

// fixPragma adds "Cache-Control: no-cache" for "Pragma: no-cache" without
// a Cache-Control, as http.ReadRequest does (RFC 9111 section 5.4).
func fixPragma(h http.Header) {
	if p := h["Pragma"]; len(p) > 0 && p[0] == "no-cache" {
		if _, ok := h["Cache-Control"]; !ok {
			h["Cache-Control"] = []string{"no-cache"}
		}
	}
}

// wantsClose is http.Request.Close as http.ReadRequest sets it for
// HTTP/1.minor from the Connection fields: an HTTP/1.0 request closes
// unless it asks for keep-alive; any asking for close closes.
func wantsClose(minor int, conn []string) bool {
	hasClose := listHasToken(conn, "close")
	if minor == 0 {
		return hasClose || !listHasToken(conn, "keep-alive")
	}
	return hasClose
}

// listHasToken reports whether a comma-separated element of one of
// values, without its blanks, is token (ASCII, case-insensitive), as
// net/http reads the Connection field.
func listHasToken(values []string, token string) bool {
	for _, v := range values {
		for e := range strings.SplitSeq(v, ",") {
			if asciiEqualFold(strings.Trim(e, " \t"), token) {
				return true
			}
		}
	}
	return false
}
