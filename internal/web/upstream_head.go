package web

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/junction-wamp/junction/internal/httpsyntax"
)

// finalHeadLen returns the length of the head at the start of b, up to
// and including its blank line, when b holds all of it and it is the
// head of a final (not 1xx) answer; 0 otherwise.
func finalHeadLen(b []byte) int {
	line, _, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		return 0
	}
	_, status, ok := bytes.Cut(line, []byte(" "))
	if !ok || len(status) == 0 || status[0] < '2' || status[0] > '9' {
		return 0
	}
	return headEnd(b)
}

// headEnd returns the length of the head at the start of b, up to and
// including its first empty line ("\n" or "\r\n", which textproto both
// reads); 0 when b does not hold all of it.
func headEnd(b []byte) int {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return 0
		}
		end := i + j + 1
		if j == 0 || j == 1 && b[i] == '\r' {
			return end
		}
		i = end
	}
}

// readSimple reads the final answer to r whose head is the first n bytes
// of c.br (see finalHeadLen), when it has the shape of nearly every
// answer to a GET: "HTTP/1.1", a status from 200 on but 204 and 304, one
// Content-Length and no Transfer-Encoding, Connection, Trailer or Pragma
// field nor any other hop-by-hop one, plain "Name: value" lines. It
// returns what http.ReadResponse would (FuzzUpstreamHead holds it to
// that), in c's reused response and body; nil, having read nothing, for
// any other answer, which http.ReadResponse reads then.
//
// The fields go straight into client, the header of the client's answer,
// when it is empty: they are all end-to-end, so that copyHeader would
// copy every one of them as it is (c.inClient says so); into c's own
// reused map otherwise.
func (c *upstreamConn) readSimple(r *http.Request, n int, client http.Header) *http.Response {
	if n == 0 || r.Method != http.MethodGet {
		return nil
	}
	b, _ := c.br.Peek(n)
	inClient, h := len(client) == 0, client
	if !inClient {
		if c.header == nil {
			c.header = make(http.Header, 8)
		}
		clear(c.header)
		h = c.header
	}
	status, code, length, ok := parseSimpleHead(b, h)
	if !ok {
		clear(h) // client was empty before, c.header is c's own
		return nil
	}
	c.inClient = inClient
	_, _ = c.br.Discard(n)
	c.resp = http.Response{
		Status:        status,
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          http.NoBody,
		ContentLength: length,
		Request:       r,
	}
	if length > 0 {
		c.body = httpsyntax.LengthBody{R: c.br, N: length}
		c.resp.Body = &c.body
	}
	return &c.resp
}

// parseSimpleHead parses head (see readSimple) into h, which it expects
// empty, and returns the status ("200 OK"), its code and the
// Content-Length; false when head has another shape (h is left partly
// filled then).
func parseSimpleHead(head []byte, h http.Header) (status string, code int, length int64, ok bool) {
	if code, ok = simpleStatus(head); !ok {
		return "", 0, 0, false
	}
	s := string(head) // one allocation for every name and value
	status, s, _ = strings.Cut(s, "\n")
	status = strings.TrimSuffix(status[len("HTTP/1.1 "):], "\r")
	f := simpleFields{h: h, values: make([]string, strings.Count(s, "\n")), length: -1} // one value per line, at most
	for {
		var line string
		line, s, _ = strings.Cut(s, "\n")
		if line = strings.TrimSuffix(line, "\r"); line == "" {
			break
		}
		if !f.add(line) {
			return "", 0, 0, false
		}
	}
	return status, code, f.length, f.length >= 0
}

// simpleStatus returns the status code of head's status line when it is
// "HTTP/1.1 ddd", alone or before a space, and the code is from 200 on
// but 204 and 304.
func simpleStatus(head []byte) (int, bool) {
	if len(head) < 14 || string(head[:9]) != "HTTP/1.1 " || head[12] != ' ' && head[12] != '\n' && string(head[12:14]) != "\r\n" {
		return 0, false
	}
	code := 0
	for _, d := range head[9:12] {
		if d < '0' || d > '9' {
			return 0, false
		}
		code = 10*code + int(d-'0')
	}
	return code, code >= 200 && code != http.StatusNoContent && code != http.StatusNotModified
}

// simpleFields collects the fields of a simple head.
type simpleFields struct {
	h      http.Header
	values []string // backing of the values, one slice per field name
	length int64    // Content-Length; -1 until seen
}

// add adds the field of line; false for a line of another shape, and a
// field that makes the head not simple.
func (f *simpleFields) add(line string) bool {
	name, value, found := strings.Cut(line, ":")
	if !found || !httpsyntax.ValidFieldName(name) {
		return false // also a line that continues the one before
	}
	value = httpsyntax.TrimBlanks(value)
	if !httpsyntax.ValidFieldValue(value) {
		return false
	}
	key := http.CanonicalHeaderKey(name) // name itself when canonical already
	if hopByHop(key, nil) || key == "Pragma" {
		return false
	}
	if key == "Content-Length" {
		if f.length >= 0 {
			return false
		}
		if f.length = httpsyntax.PlainLength(value); f.length < 0 {
			return false
		}
	}
	if vv := f.h[key]; vv != nil {
		f.h[key] = append(vv, value)
		return true
	}
	var vv []string
	vv, f.values = f.values[:1:1], f.values[1:]
	vv[0] = value
	f.h[key] = vv
	return true
}
