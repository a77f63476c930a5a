package web

import (
	"net/http"
	"strconv"
	"strings"
)

// NotFound answers 404 with a small JSON body. It is what a Tree sends for
// a path no service owns, and what Static sends for a missing file.
func NotFound(w http.ResponseWriter, r *http.Request) {
	writeSmallJSON(w, r, http.StatusNotFound, `{"error":"not found"}`)
}

// methodNotAllowed answers 405 with an Allow header listing allowed.
func methodNotAllowed(w http.ResponseWriter, r *http.Request, allowed ...string) {
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	writeSmallJSON(w, r, http.StatusMethodNotAllowed, `{"error":"method not allowed"}`)
}

// readOnly reports whether r is a GET or HEAD; otherwise it answers 405
// (Allow: GET, HEAD) and returns false.
func readOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	methodNotAllowed(w, r, http.MethodGet, http.MethodHead)
	return false
}

// writeSmallJSON writes a fixed JSON body with status; HEAD gets the headers
// only.
func writeSmallJSON(w http.ResponseWriter, r *http.Request, status int, body string) {
	writeBody(w, r, status, "application/json", []byte(body+"\n"))
}

// writeBody writes status, Content-Type, Content-Length and, unless r is a
// HEAD request, body.
func writeBody(w http.ResponseWriter, r *http.Request, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// OnlyMountPath returns h answering its mount point alone ("/metrics",
// "/metrics/"; "/" for the root service): any other path under it gets
// 404, so that a service at the root does not answer for "/favicon.ico".
func OnlyMountPath(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if atMountPath(w, r) {
			h.ServeHTTP(w, r)
		}
	})
}

// atMountPath reports whether r is for the service's mount point itself;
// if not, it has answered 404.
func atMountPath(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != "" && r.URL.Path != "/" {
		NotFound(w, r)
		return false
	}
	return true
}
