package h1

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/httpsyntax"
)

// skip is a set of the header fields the engine decides itself, left out
// of the handler's header when the head is written.
type skip uint8

const (
	skipContentLength skip = 1 << iota
	skipTransferEncoding
	skipConnection
	skipContentType
)

const skipNoBody = skipContentLength | skipTransferEncoding

// fieldSkip maps a canonical field name to its skip bit.
func fieldSkip(k string) skip {
	switch k {
	case "Content-Length":
		return skipContentLength
	case "Transfer-Encoding":
		return skipTransferEncoding
	case "Connection":
		return skipConnection
	case "Content-Type":
		return skipContentType
	}
	return 0
}

// extra holds the fields the engine adds to the handler's.
type extra struct {
	contentLength int64 // -1: none
	contentType   string
	connection    string
	chunked       bool
	date          bool
}

// writeHead decides how the answer is framed (Content-Length, chunked,
// or to the connection's close; kept alive or not) the way net/http
// does, and writes the status line and header into the connection's
// buffer. p is the start of the body (all of it when the handler is
// done), for the Content-Length and the sniffed Content-Type.
func (w *response) writeHead(p []byte) {
	w.sentHeader = true
	h := w.header
	if w.snapshot != nil {
		h = w.snapshot
	}
	x := extra{contentLength: -1}
	var drop skip
	isHEAD := w.req.Method == http.MethodHead
	trailers := w.declareTrailers(h)
	te := firstValue(h, "Transfer-Encoding")
	hasTE := te != ""
	if w.handlerDone && !trailers && !hasTE && bodyAllowed(w.status) && firstValue(h, "Content-Length") == "" && (!isHEAD || len(p) > 0) {
		w.contentLength = int64(len(p))
		x.contentLength = int64(len(p))
	}
	w.decideClose(h, isHEAD, &x)
	if w.req.ContentLength != 0 && !w.closeAfter && !w.fullDuplex && w.body != nil {
		w.discardBody(&x, &drop)
	}
	if bodyAllowed(w.status) {
		if _, ok := h["Content-Type"]; !ok && firstValue(h, "Content-Encoding") == "" && !hasTE && len(p) > 0 {
			x.contentType = http.DetectContentType(p)
		}
	} else {
		drop |= skipNoBody
		if w.status == http.StatusNotModified {
			drop |= skipContentType
		}
	}
	_, x.date = h["Date"]
	x.date = !x.date
	hasCL := w.contentLength != -1
	if hasCL && hasTE && te != "identity" {
		w.c.srv.logger().Debug("http: WriteHeader with both Transfer-Encoding and Content-Length", "transfer_encoding", te)
		drop |= skipContentLength
		hasCL = false
	}
	w.frame(te, hasTE, hasCL, isHEAD, &x, &drop)
	if w.chunking {
		drop |= skipContentLength
		x.contentLength = -1
	}
	if w.closeAfter && (w.c.srv.shutting.Load() || !hasToken(firstValue(h, "Connection"), "close")) && !isProtocolSwitch(w.status, h) {
		drop |= skipConnection
		x.connection = ""
		if w.req.ProtoAtLeast(1, 1) {
			x.connection = "close"
		}
	}
	w.bodyOK = !isHEAD && bodyAllowed(w.status)
	bw := w.c.bw
	writeStatusLine(bw, w.req.ProtoAtLeast(1, 1), w.status)
	writeFields(bw, h, drop)
	x.write(bw)
	_, _ = bw.WriteString("\r\n")
}

// decideClose settles whether the connection closes after the answer,
// from the request's wishes and the handler's Connection field.
func (w *response) decideClose(h http.Header, isHEAD bool, x *extra) {
	keepAlives := !w.c.srv.shutting.Load()
	if w.wants10KeepAlive && keepAlives && firstValue(h, "Content-Length") != "" && firstValue(h, "Connection") == "keep-alive" {
		w.closeAfter = false
	}
	hasCL := w.contentLength != -1
	if w.wants10KeepAlive && (isHEAD || hasCL || !bodyAllowed(w.status)) {
		if _, set := h["Connection"]; !set {
			x.connection = "keep-alive"
		}
	} else if !w.req.ProtoAtLeast(1, 1) || w.wantsClose {
		w.closeAfter = true
	}
	if firstValue(h, "Connection") == "close" || !keepAlives {
		w.closeAfter = true
	}
	if w.body != nil && w.body.waitsForContinue() {
		w.closeAfter = true // the client still waits to send the body, or sends it: either way, no next request
	}
}

// discardBody reads the rest of the request body before the head, as
// net/http does.
func (w *response) discardBody(x *extra, drop *skip) {
	keep, tooBig := w.body.discard()
	if !keep {
		w.closeAfter = true
	}
	if tooBig {
		w.tooBig = true
		*drop |= skipConnection
		x.connection = "close"
	}
}

// frame chooses between Content-Length, chunked and close-delimited.
func (w *response) frame(te string, hasTE, hasCL, isHEAD bool, x *extra, drop *skip) {
	switch {
	case isHEAD || !bodyAllowed(w.status) || w.status == http.StatusNoContent:
		*drop |= skipTransferEncoding
	case hasCL:
		*drop |= skipTransferEncoding
	case w.req.ProtoAtLeast(1, 1):
		if hasTE && te == "identity" {
			w.closeAfter = true
			*drop |= skipTransferEncoding
			return
		}
		w.chunking = true
		x.chunked = true
		if hasTE && te == "chunked" {
			*drop |= skipTransferEncoding
		}
	default:
		w.closeAfter = true
		*drop |= skipTransferEncoding
	}
}

func (x *extra) write(bw *bufio.Writer) {
	if x.contentLength >= 0 {
		_, _ = bw.WriteString("Content-Length: ")
		_, _ = bw.Write(strconv.AppendInt(bw.AvailableBuffer(), x.contentLength, 10))
		_, _ = bw.WriteString("\r\n")
	}
	if x.contentType != "" {
		writeField(bw, "Content-Type", x.contentType)
	}
	if x.connection != "" {
		writeField(bw, "Connection", x.connection)
	}
	if x.chunked {
		_, _ = bw.WriteString("Transfer-Encoding: chunked\r\n")
	}
	if x.date {
		_, _ = bw.WriteString("Date: ")
		_, _ = bw.Write(appendDate(bw.AvailableBuffer()))
		_, _ = bw.WriteString("\r\n")
	}
}

// writeStatusLine writes "HTTP/1.x code text".
func writeStatusLine(bw *bufio.Writer, is11 bool, code int) {
	if is11 && code == http.StatusOK { // nearly every answer's
		_, _ = bw.WriteString("HTTP/1.1 200 OK\r\n")
		return
	}
	if is11 {
		_, _ = bw.WriteString("HTTP/1.1 ")
	} else {
		_, _ = bw.WriteString("HTTP/1.0 ")
	}
	_, _ = bw.Write(strconv.AppendInt(bw.AvailableBuffer(), int64(code), 10))
	if text := http.StatusText(code); text != "" {
		_, _ = bw.WriteString(" ")
		_, _ = bw.WriteString(text)
		_, _ = bw.WriteString("\r\n")
		return
	}
	_, _ = bw.WriteString(" status code " + strconv.Itoa(code) + "\r\n")
}

// writeFields writes h but the fields in drop and the trailer
// placeholders (http.TrailerPrefix); invalid names are left out, and line
// breaks in values become spaces, as net/http does.
func writeFields(bw *bufio.Writer, h http.Header, drop skip) {
	for k, vv := range h {
		if drop != 0 && fieldSkip(k)&drop != 0 || strings.HasPrefix(k, http.TrailerPrefix) || !httpsyntax.ValidFieldName(k) {
			continue
		}
		for _, v := range vv {
			writeField(bw, k, v)
		}
	}
}

var newlineToSpace = strings.NewReplacer("\n", " ", "\r", " ")

func writeField(bw *bufio.Writer, k, v string) {
	if strings.IndexByte(v, '\r') >= 0 || strings.IndexByte(v, '\n') >= 0 { // faster than ContainsAny
		v = newlineToSpace.Replace(v)
	}
	v = httpsyntax.TrimBlanks(v)
	_, _ = bw.WriteString(k)
	_, _ = bw.WriteString(": ")
	_, _ = bw.WriteString(v)
	_, _ = bw.WriteString("\r\n")
}

// declareTrailers records the fields the Trailer header announces and
// reports whether the answer has trailers (announced or placeholders).
func (w *response) declareTrailers(h http.Header) bool {
	has := false
	for k := range h {
		if strings.HasPrefix(k, http.TrailerPrefix) {
			has = true
			break
		}
	}
	for _, v := range h["Trailer"] {
		has = true
		for f := range strings.SplitSeq(v, ",") {
			if f = http.CanonicalHeaderKey(strings.Trim(f, " \t")); f != "" && ValidTrailer(f) {
				w.trailers = append(w.trailers, f)
			}
		}
	}
	return has
}

// ValidTrailer reports whether the field k (canonical) may be a trailer
// the engine sends: it refuses the fields that must not be (RFC 9110
// section 6.5.1), as net/http does.
func ValidTrailer(k string) bool {
	switch k {
	case "Authorization", "Cache-Control", "Connection", "Content-Encoding", "Content-Length",
		"Content-Range", "Content-Type", "Expect", "Host", "Keep-Alive", "Max-Forwards",
		"Pragma", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection", "Range",
		"Realm", "Te", "Trailer", "Transfer-Encoding", "Www-Authenticate":
		return false
	}
	return httpsyntax.ValidFieldName(k)
}

// writeTrailers writes the trailer fields after the last chunk: the
// announced ones and the http.TrailerPrefix placeholders, from the
// handler's header as it is at the end.
func (w *response) writeTrailers() {
	bw := w.c.bw
	for k, vv := range w.header {
		if name, ok := strings.CutPrefix(k, http.TrailerPrefix); ok && httpsyntax.ValidFieldName(name) {
			for _, v := range vv {
				writeField(bw, name, v)
			}
		}
	}
	for _, k := range w.trailers {
		for _, v := range w.header[k] {
			writeField(bw, k, v)
		}
	}
}

// bodyAllowed reports whether an answer with status may have a body.
func bodyAllowed(status int) bool {
	return (status < 100 || status > 199) && status != http.StatusNoContent && status != http.StatusNotModified
}

// isProtocolSwitch reports a 101 answer that switches protocols.
func isProtocolSwitch(status int, h http.Header) bool {
	if status != http.StatusSwitchingProtocols || firstValue(h, "Upgrade") == "" {
		return false
	}
	for _, v := range h["Connection"] {
		if hasToken(v, "upgrade") {
			return true
		}
	}
	return false
}

// hasToken reports whether v holds token, case-insensitively, between
// separators (space, comma, tab), as net/http reads Connection and
// Expect.
func hasToken(v, token string) bool {
	for sp := 0; sp+len(token) <= len(v); sp++ {
		if sp > 0 && !isTokenBoundary(v[sp-1]) {
			continue
		}
		if end := sp + len(token); end != len(v) && !isTokenBoundary(v[end]) {
			continue
		}
		if asciiEqualFold(v[sp:sp+len(token)], token) {
			return true
		}
	}
	return false
}

func isTokenBoundary(b byte) bool { return b == ' ' || b == ',' || b == '\t' }

func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// dateCache holds the Date field of the current second.
var dateCache struct {
	mu  sync.Mutex
	sec int64
	b   []byte
}

// appendDate appends the current time in http.TimeFormat, formatted once
// a second.
func appendDate(dst []byte) []byte {
	now := time.Now()
	dateCache.mu.Lock()
	defer dateCache.mu.Unlock()
	if s := now.Unix(); s != dateCache.sec || dateCache.b == nil {
		dateCache.sec = s
		dateCache.b = now.UTC().AppendFormat(dateCache.b[:0], http.TimeFormat)
	}
	return append(dst, dateCache.b...)
}

// firstValue is h.Get(k) for a canonical k, which it does not canonicalize
// again: the first value, "" when there is none.
func firstValue(h http.Header, k string) string {
	if v := h[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}
