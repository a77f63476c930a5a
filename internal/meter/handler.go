package meter

import (
	"bufio"
	"net"
	"net/http"
	"time"
)

// Handler returns h with every request it serves counted in r (see
// Serve).
func (r *Requests) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { r.Serve(w, req, h) })
}

// Serve calls h and counts the request with the status it was answered
// with and how long h took. A request that h answers without writing is
// counted 200 (what net/http sends then), or NoResponse when its client
// has gone; a connection h hijacks (a WebSocket upgrade) 101.
func (r *Requests) Serve(w http.ResponseWriter, req *http.Request, h http.Handler) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	defer func() { r.Observe(sw.status(req), time.Since(start)) }()
	h.ServeHTTP(sw, req)
}

// statusWriter records the status a handler answers with. It passes
// Flush and Hijack on (and Unwrap for http.ResponseController).
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 && code >= 200 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil && w.code == 0 {
		w.code = http.StatusSwitchingProtocols
	}
	return c, rw, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) status(req *http.Request) int {
	switch {
	case w.code != 0:
		return w.code
	case req.Context().Err() != nil:
		return NoResponse
	}
	return http.StatusOK
}
