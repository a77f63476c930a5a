package web

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/junction-wamp/junction/internal/httpsyntax"
	"github.com/junction-wamp/junction/internal/web/h1"
)

// The loop engine's reading of an upstream's answer and writing of the
// client's: the answer head is read as the direct path reads it (its own
// parser for the simple head of nearly every answer to a GET,
// http.ReadResponse for any other), and the client's head is written as
// h1 writes what the direct path gives it (status text, end-to-end
// fields, the framing h1 chooses, a sniffed Content-Type, Date).

// bodyFraming is how an upstream answer's body ends.
type bodyFraming uint8

const (
	bodyNone    bodyFraming = iota // no body: HEAD, 1xx, 204, 304
	bodyLength                     // Content-Length bytes
	bodyChunked                    // chunked
	bodyToClose                    // up to the end of the connection
)

// upAnswer is the head of an upstream's answer, as the loop engine relays
// it.
type upAnswer struct {
	code     int
	header   http.Header // its fields, Transfer-Encoding and Trailer but those of a simple head included
	framing  bodyFraming
	length   int64    // with bodyLength
	trailers []string // the trailer fields it announced (chunked only)
	close    bool     // the upstream closes the connection after it
	own      http.Header
}

// informational reports a 1xx answer (never 101: readAnswer refuses it).
func (a *upAnswer) informational() bool { return a.code < 200 }

// readAnswer reads head, the whole head of an answer (see headEnd) to a
// request with method, into a. Its errors are those the direct path
// fails with.
func readAnswer(head []byte, method string, a *upAnswer) error {
	if a.own == nil {
		a.own = make(http.Header, 8)
	}
	clear(a.own)
	*a = upAnswer{own: a.own, header: a.own, trailers: a.trailers[:0]}
	if method == http.MethodGet && finalHeadLen(head) == len(head) {
		if _, code, length, ok := parseSimpleHead(head, a.own); ok {
			a.code, a.framing, a.length = code, bodyLength, length
			return nil
		}
		clear(a.own)
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(head)), &http.Request{Method: method})
	if err != nil {
		return err
	}
	switch code := resp.StatusCode; {
	case code < 100:
		return fmt.Errorf("web: reverseproxy: bad upstream status %d", code)
	case code == http.StatusSwitchingProtocols:
		return errors.New("web: reverseproxy: upstream switched protocols without an upgrade request")
	}
	a.code, a.header, a.close = resp.StatusCode, resp.Header, resp.Close
	switch {
	case a.code < 200 || method == http.MethodHead || a.code == http.StatusNoContent || a.code == http.StatusNotModified:
		a.framing = bodyNone
	case len(resp.TransferEncoding) > 0:
		a.framing = bodyChunked
		for k := range resp.Trailer {
			a.trailers = append(a.trailers, k)
		}
	case resp.ContentLength >= 0:
		a.framing, a.length = bodyLength, resp.ContentLength
	default:
		a.framing = bodyToClose
	}
	return nil
}

// clientHead is what h1 decides about the client's answer besides the
// upstream's fields.
type clientHead struct {
	chunked     bool   // the body goes out chunked
	emptyLength bool   // "Content-Length: 0": the body ended before the head went out
	contentType string // sniffed; "" for none
	close       bool   // "Connection: close"
	date        []byte // the Date value, when the answer has none
}

// appendAnswerHead appends the head of the client's answer to a: the
// status line, a's end-to-end fields, and what h says.
func appendAnswerHead(b []byte, a *upAnswer, h *clientHead) []byte {
	b = appendStatusLine(b, a.code)
	connection := a.header["Connection"]
	for k, vv := range a.header {
		if hopByHop(k, connection) || droppedField(k, a.code, h.chunked) {
			continue
		}
		for _, v := range vv {
			b = appendField(b, k, v)
		}
	}
	if a.informational() {
		return append(b, "\r\n"...)
	}
	if len(a.trailers) > 0 {
		b = append(b, "Trailer: "...)
		for i, k := range a.trailers {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, k...)
		}
		b = append(b, "\r\n"...)
	}
	return appendExtraFields(b, h, a.header)
}

// appendExtraFields appends the fields h1 adds, h's and Date.
func appendExtraFields(b []byte, h *clientHead, fields http.Header) []byte {
	if h.emptyLength {
		b = append(b, "Content-Length: 0\r\n"...)
	}
	if h.contentType != "" {
		b = appendField(b, "Content-Type", h.contentType)
	}
	if h.close {
		b = append(b, "Connection: close\r\n"...)
	}
	if h.chunked {
		b = append(b, "Transfer-Encoding: chunked\r\n"...)
	}
	if _, ok := fields["Date"]; !ok && h.date != nil {
		b = append(b, "Date: "...)
		b = append(b, h.date...)
		b = append(b, "\r\n"...)
	}
	return append(b, "\r\n"...)
}

// droppedField reports a field h1 leaves out of an answer with code:
// the framing fields of an answer without a body (and the Content-Type
// of a 304), the Content-Length of a chunked one.
func droppedField(k string, code int, chunked bool) bool {
	switch k {
	case "Content-Length":
		return chunked || !bodyAllowed(code)
	case "Transfer-Encoding":
		return !bodyAllowed(code)
	case "Content-Type":
		return code == http.StatusNotModified
	}
	return false
}

// bodyAllowed reports whether an answer with code may have a body.
func bodyAllowed(code int) bool {
	return code >= 200 && code != http.StatusNoContent && code != http.StatusNotModified
}

// appendStatusLine appends "HTTP/1.1 code text", as h1 writes it.
func appendStatusLine(b []byte, code int) []byte {
	if code == http.StatusOK {
		return append(b, "HTTP/1.1 200 OK\r\n"...)
	}
	b = append(b, "HTTP/1.1 "...)
	b = strconv.AppendInt(b, int64(code), 10)
	if text := http.StatusText(code); text != "" {
		b = append(b, ' ')
		b = append(b, text...)
	} else {
		b = append(b, " status code "...)
		b = strconv.AppendInt(b, int64(code), 10)
	}
	return append(b, "\r\n"...)
}

// needsSniff reports whether h1 would give the client's answer to a a
// Content-Type sniffed from the body's first bytes: a has a body, and
// neither Content-Type nor Content-Encoding.
func needsSniff(a *upAnswer) bool {
	if a.framing == bodyNone || a.framing == bodyLength && a.length == 0 {
		return false
	}
	if _, ok := a.header["Content-Type"]; ok {
		return false
	}
	ce := a.header["Content-Encoding"]
	return len(ce) == 0 || ce[0] == ""
}

// sniffLen is how many body bytes http.DetectContentType looks at.
const sniffLen = 512

// appendSmallJSON appends the whole answer writeSmallJSON gives through
// h1: status, Content-Type, Content-Length, X-Content-Type-Options, and
// the body unless the request is a HEAD.
func appendSmallJSON(b []byte, code int, body string, head bool, h *clientHead) []byte {
	b = appendStatusLine(b, code)
	b = append(b, "Content-Type: application/json\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)+1), 10)
	b = append(b, "\r\nX-Content-Type-Options: nosniff\r\n"...)
	b = appendExtraFields(b, h, nil)
	if !head {
		b = append(b, body...)
		b = append(b, '\n')
	}
	return b
}

// appendChunk appends data as one chunk.
func appendChunk(b, data []byte) []byte {
	b = strconv.AppendInt(b, int64(len(data)), 16)
	b = append(b, "\r\n"...)
	b = append(b, data...)
	return append(b, "\r\n"...)
}

// appendLastChunk appends the last chunk and the trailer section: the
// trailer fields h1 sends of those the upstream sent (see passTrailers),
// given the fields announced.
func appendLastChunk(b []byte, announced []string, trailer http.Header) []byte {
	b = append(b, "0\r\n"...)
	allAnnounced := true
	for k := range trailer {
		if !slices.Contains(announced, k) {
			allAnnounced = false
		}
	}
	connection := trailer["Connection"]
	for k, vv := range trailer {
		if allAnnounced && (hopByHop(k, connection) || !h1.ValidTrailer(k)) {
			continue
		}
		if !allAnnounced && !httpsyntax.ValidFieldName(k) {
			continue
		}
		for _, v := range vv {
			b = appendField(b, k, v)
		}
	}
	return append(b, "\r\n"...)
}
