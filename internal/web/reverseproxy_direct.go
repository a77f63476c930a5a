package web

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/junction-wamp/junction/internal/wsupgrade"
)

// direct reports whether r takes the direct path: a GET or HEAD without a
// body or an upgrade, on a proxy with connections of its own.
func (p *ReverseProxy) direct(r *http.Request) bool {
	return p.conns != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		r.ContentLength == 0 && (r.Body == nil || r.Body == http.NoBody) && r.Header["Upgrade"] == nil
}

// serveDirect proxies r over one of the proxy's own connections, on the
// handler's goroutine: the request head is written from r, and the
// answer's head and body are copied to w as they come.
func (p *ReverseProxy) serveDirect(w http.ResponseWriter, r *http.Request) {
	buf := headBuffers.Get().(*[]byte)
	*buf = p.appendHead((*buf)[:0], r)
	c, resp, err := p.conns.exchange(w, r, *buf)
	headBuffers.Put(buf)
	if err != nil {
		p.serveError(w, r, err)
		return
	}
	announced := announceTrailers(w.Header(), resp.Trailer)
	if !c.inClient { // else the fields are in w's header already
		copyHeader(w.Header(), resp.Header)
	}
	w.WriteHeader(resp.StatusCode)
	err = copyBody(w, resp)
	trailer, reuse := resp.Trailer, err == nil && !resp.Close
	p.conns.release(c, reuse) // resp is c's, and not to be used after this
	if err != nil {
		// The answer is cut short: all that can be done is to end the
		// client's connection, so that it cannot take it for complete.
		p.log.LogAttrs(r.Context(), slog.LevelDebug, "web: reverseproxy: answer cut short",
			slog.String("path", r.URL.EscapedPath()), slog.String("error", err.Error()))
		panic(http.ErrAbortHandler)
	}
	passTrailers(w, trailer, announced)
}

// headBuffers lends the buffers that request heads are made in. Safe for
// concurrent use.
var headBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// appendHead appends the head of the upstream request for r to b: request
// line, Host, the client's end-to-end headers and the forwarding headers
// (see ReverseProxy).
func (p *ReverseProxy) appendHead(b []byte, r *http.Request) []byte {
	_, target := p.upstreamPath(r.URL)
	h := outgoingHead{
		method:     r.Method,
		target:     target,
		query:      r.URL.RawQuery,
		forceQuery: r.URL.ForceQuery,
		header:     r.Header,
		connection: r.Header["Connection"],
		te:         r.Header["Te"],
		fwd:        p.forwarding(r),
	}
	return p.appendOutgoing(b, &h)
}

// outgoingHead is what the head of a bodiless upstream request is made
// of, from the direct path's http.Request or from the loop engine's own
// parse of the client's head.
type outgoingHead struct {
	method     string
	target     string // the escaped path, behind Path (see upstreamPath)
	query      string // raw
	forceQuery bool   // "?" with an empty query
	// The client's fields but Host: header (the direct path's) or fields
	// (the loop's, in the order received, names canonical).
	header     http.Header
	fields     []field
	connection []string // the Connection field's lines
	te         []string // the TE field's lines
	fwd        [5]field // see forwarding
}

// appendOutgoing appends the upstream request head h to b: request line,
// Host, the client's end-to-end fields and the forwarding fields.
func (p *ReverseProxy) appendOutgoing(b []byte, h *outgoingHead) []byte {
	b = append(b, h.method...)
	b = append(b, ' ')
	b = append(b, h.target...)
	if h.query != "" || h.forceQuery {
		b = append(b, '?')
		b = append(b, h.query...)
	}
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, p.upstream...)
	b = append(b, "\r\n"...)
	for key, values := range h.header {
		if passedOn(key, h.connection) {
			for _, v := range values {
				b = appendField(b, key, v)
			}
		}
	}
	for _, f := range h.fields {
		if passedOn(f.name, h.connection) {
			b = appendField(b, f.name, f.value)
		}
	}
	if wsupgrade.HasToken(h.te, "trailers") {
		b = append(b, "Te: trailers\r\n"...)
	}
	for _, f := range h.fwd {
		if f.value != "" {
			b = appendField(b, f.name, f.value)
		}
	}
	return append(b, "\r\n"...)
}

// passedOn reports whether the client's field key (canonical) goes on to
// the upstream as it is: an end-to-end field that connection (the lines
// of the Connection field) does not name, and none of those the proxy
// sets itself.
func passedOn(key string, connection []string) bool {
	return !hopByHop(key, connection) && !forwardingHeader(key) && key != "Content-Length"
}

// appendField appends "key: value\r\n", with any CR or LF of value (which
// net/http's server never lets through) made a space, as Header.Write
// does.
func appendField(b []byte, key, value string) []byte {
	b = append(b, key...)
	b = append(b, ": "...)
	if strings.IndexByte(value, '\r') >= 0 || strings.IndexByte(value, '\n') >= 0 { // faster than ContainsAny
		value = strings.NewReplacer("\r", " ", "\n", " ").Replace(value)
	}
	b = append(b, value...)
	return append(b, "\r\n"...)
}

// hopByHop reports whether the header key (canonical) belongs to one
// connection and is not passed on: a hop-by-hop header, or one that
// connection (the lines of the Connection header) names.
func hopByHop(key string, connection []string) bool {
	switch key {
	case "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
		"Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	return connection != nil && wsupgrade.HasToken(connection, key)
}

// copyHeader adds the end-to-end fields of src to dst. The values are
// shared, not copied: src is not used afterwards.
func copyHeader(dst, src http.Header) {
	connection := src["Connection"]
	for key, values := range src {
		if hopByHop(key, connection) {
			continue
		}
		if have := dst[key]; have != nil {
			dst[key] = append(have, values...)
		} else {
			dst[key] = values
		}
	}
}

// passInformational passes an informational (1xx) answer on to w, with its
// headers, which are cleared afterwards (WriteHeader keeps them for 1xx).
func passInformational(w http.ResponseWriter, resp *http.Response) {
	h := w.Header()
	copyHeader(h, resp.Header)
	w.WriteHeader(resp.StatusCode)
	clear(h)
}

// copyBody copies resp's body to w; a body of unknown length and an event
// stream are flushed as they come.
func copyBody(w http.ResponseWriter, resp *http.Response) error {
	flush := resp.ContentLength == -1 || isEventStream(resp.Header)
	bp := copyBuffers.get()
	defer copyBuffers.put(bp)
	buf := *bp
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
			if flush {
				if ferr := http.NewResponseController(w).Flush(); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// isEventStream reports whether h's Content-Type is text/event-stream
// (with parameters or not, in any case).
func isEventStream(h http.Header) bool {
	const es = "text/event-stream"
	ct := h["Content-Type"]
	if len(ct) == 0 {
		return false
	}
	v := strings.TrimLeft(ct[0], " \t")
	if len(v) < len(es) || !strings.EqualFold(v[:len(es)], es) {
		return false
	}
	rest := strings.TrimLeft(v[len(es):], " \t")
	return rest == "" || rest[0] == ';'
}

// announceTrailers announces in h the trailer fields that the upstream
// announced, and returns how many.
func announceTrailers(h, trailer http.Header) int {
	if len(trailer) == 0 {
		return 0
	}
	keys := make([]string, 0, len(trailer))
	for k := range trailer {
		keys = append(keys, k)
	}
	h.Add("Trailer", strings.Join(keys, ", "))
	return len(keys)
}

// passTrailers sends the upstream's trailer fields, read with the body:
// those announced as such, the others with http.TrailerPrefix.
func passTrailers(w http.ResponseWriter, trailer http.Header, announced int) {
	if len(trailer) == 0 {
		return
	}
	// Flushing first forces chunking, so that net/http does not give a
	// short body a Content-Length, which leaves no room for trailers.
	_ = http.NewResponseController(w).Flush()
	h := w.Header()
	if len(trailer) == announced {
		copyHeader(h, trailer)
		return
	}
	for k, values := range trailer {
		for _, v := range values {
			h.Add(http.TrailerPrefix+k, v)
		}
	}
}
