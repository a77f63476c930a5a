package web

import (
	"net/http"
	"strconv"
)

// hsts adds Strict-Transport-Security to responses sent over TLS.
func hsts(next http.Handler, maxAge int) http.Handler {
	value := "max-age=" + strconv.Itoa(maxAge)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil {
			w.Header().Set("Strict-Transport-Security", value)
		}
		next.ServeHTTP(w, r)
	})
}
