package longpoll

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// setStandardHeaders sets the headers Crossbar sends on every long-poll
// answer: the request's origin allowed with credentials ("*" without one,
// or for "null"), the headers a preflight asks for, and no caching.
func setStandardHeaders(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		origin = "*"
	}
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Credentials", "true")
	h.Set("Cache-Control", "no-store, no-cache, must-revalidate, max-age=0")
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
		h.Set("Access-Control-Allow-Headers", req)
	}
	if origin != "*" {
		h.Add("Vary", "Origin")
	}
}

// writeError answers status with a JSON body {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	b = append(b, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeBody answers 200 with body (possibly empty) of content type ct.
func writeBody(w http.ResponseWriter, ct string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

const notice = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>WAMP-over-Longpoll</title></head>
<body><p>This is a <b>WAMP-over-Longpoll</b> transport: POST to <code>open</code> to start a session.</p></body></html>
`

// writeNotice answers a GET of the service's root, as Crossbar does, with
// a page that says what is here.
func writeNotice(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(notice))
}

// mimeTypes are the content types of receive answers, by serializer, as
// autobahn's serializers name them.
var mimeTypes = map[string]string{
	"json":    "application/json",
	"msgpack": "application/x-msgpack",
	"cbor":    "application/cbor",
	"ubjson":  "application/ubjson",
}
