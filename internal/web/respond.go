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
