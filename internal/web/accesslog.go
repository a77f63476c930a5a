package web

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// accessLog logs one info line per request after next has answered it.
func accessLog(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		log.LogAttrs(r.Context(), slog.LevelInfo, "web: request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.EscapedPath()), // no query: it may carry signatures
			slog.Int("status", rec.statusOrOK()),
			slog.Int64("bytes", rec.bytes),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr))
	})
}

// recorder notes the status and body size of a response. It keeps the
// optional interfaces a WebSocket upgrade (Hijacker), streaming (Flusher)
// and sendfile (ReaderFrom) need, and Unwrap for http.ResponseController.
// It is used by one request goroutine only.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

var (
	_ http.Hijacker = (*recorder)(nil)
	_ http.Flusher  = (*recorder)(nil)
	_ io.ReaderFrom = (*recorder)(nil)
)

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 && status >= 200 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

func (w *recorder) ReadFrom(r io.Reader) (int64, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := io.Copy(w.ResponseWriter, r)
	w.bytes += n
	return n, err
}

func (w *recorder) Flush() {
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack hands the connection over; the request is logged with status 101
// unless a status was already written.
func (w *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil && w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return c, rw, err
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *recorder) statusOrOK() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}
