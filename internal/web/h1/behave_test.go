package h1

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// behave answers by its path, to hold the engine's ResponseWriter beside
// net/http's: framing, sniffing, status codes without a body, trailers,
// flushes, unread bodies.
func behave(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/small":
		_, _ = io.WriteString(w, "<html>hi</html>")
	case "/big":
		_, _ = w.Write([]byte(strings.Repeat("x", 5000)))
	case "/flush":
		_, _ = io.WriteString(w, "a")
		w.(http.Flusher).Flush()
		_, _ = io.WriteString(w, "b")
	case "/flush-empty":
		w.(http.Flusher).Flush()
	case "/204":
		w.WriteHeader(http.StatusNoContent)
		_, _ = io.WriteString(w, "no")
	case "/304":
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", "5")
		w.WriteHeader(http.StatusNotModified)
	case "/103":
		w.Header().Set("Link", "</a.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		_, _ = io.WriteString(w, "after hints")
	case "/trailer":
		w.Header().Set("Trailer", "X-Sum")
		_, _ = io.WriteString(w, "body")
		w.Header().Set("X-Sum", "42")
		w.Header().Set(http.TrailerPrefix+"X-Late", "yes")
	case "/short-cl":
		w.Header().Set("Content-Length", "10")
		_, _ = io.WriteString(w, "abc")
	case "/long-cl":
		w.Header().Set("Content-Length", "2")
		_, err := io.WriteString(w, "abc")
		_, _ = fmt.Fprint(io.Discard, err)
	case "/close":
		w.Header().Set("Connection", "close")
		_, _ = io.WriteString(w, "bye")
	case "/identity":
		w.Header().Set("Transfer-Encoding", "identity")
		_, _ = io.WriteString(w, "stream")
	case "/te-chunked":
		w.Header().Set("Transfer-Encoding", "chunked")
		_, _ = io.WriteString(w, "chunks")
	case "/encoded":
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = io.WriteString(w, "not sniffed")
	case "/ignore-body":
		_, _ = io.WriteString(w, "ignored")
	case "/close-body":
		_ = r.Body.Close()
		_, _ = io.WriteString(w, "closed")
	case "/read-some":
		_, _ = r.Body.Read(make([]byte, 3))
		_, _ = io.WriteString(w, "some")
	case "/header-after":
		w.WriteHeader(http.StatusAccepted)
		w.Header().Set("X-After", "not sent")
		_, _ = io.WriteString(w, "accepted")
	case "/weird-status":
		w.WriteHeader(599)
	case "/abort":
		_, _ = io.WriteString(w, "partial")
		panic(http.ErrAbortHandler)
	default:
		echo(w, r)
	}
}

func TestDifferentialHandlers(t *testing.T) {
	s := startBoth(t, http.HandlerFunc(behave))
	paths := []string{"/small", "/big", "/flush", "/flush-empty", "/204", "/304", "/103", "/trailer",
		"/short-cl", "/long-cl", "/close", "/identity", "/te-chunked", "/encoded", "/ignore-body",
		"/close-body", "/read-some", "/header-after", "/weird-status", "/abort"}
	bodies := map[string]string{
		"none":    "",
		"small":   "Content-Length: 5\r\n\r\nhello",
		"chunked": "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"large":   fmt.Sprintf("Content-Length: %d\r\n\r\n%s", 300<<10, strings.Repeat("z", 300<<10)),
		"largech": fmt.Sprintf("Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", 300<<10, strings.Repeat("z", 300<<10)),
	}
	next := "GET /next HTTP/1.1\r\nHost: a\r\n\r\n"
	for _, p := range paths {
		for _, m := range []string{"GET", "HEAD", "POST"} {
			for _, proto := range []string{"HTTP/1.1", "HTTP/1.0"} {
				for bname, b := range bodies {
					if m != "POST" && bname != "none" {
						continue
					}
					head := m + " " + p + " " + proto + "\r\nHost: a\r\n"
					if b == "" {
						b = "\r\n"
					}
					raw := head + b + next
					t.Run(strings.Join([]string{p, m, proto, bname}, " "), func(t *testing.T) {
						std := exchange(t, s.std, []byte(raw))
						eng := exchange(t, s.eng, []byte(raw))
						if !slices.Equal(std, eng) {
							t.Errorf("net/http:\n\t%s\nengine:\n\t%s", joinLines(std), joinLines(eng))
						}
					})
				}
			}
		}
	}
}
