package web

import (
	"crypto/tls"
	"net"
	"net/http"

	"github.com/junction-wamp/junction/internal/transport/tlsconn"
)

// tlsState gives r.TLS to the requests of a TLS connection that net/http
// does not see as one: a connection wrapped after its handshake (by a
// listener that dispatches connections by their first bytes, as the
// universal transport does) whose wrapper gives the *tls.Conn by
// NetConn. Other requests go to next unchanged.
func tlsState(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil {
			if tc := wrappedTLS(r); tc != nil {
				cs := tc.ConnectionState()
				r = r.WithContext(r.Context()) // a shallow copy: the server keeps its own
				r.TLS = &cs
			}
		}
		next.ServeHTTP(w, r)
	})
}

// wrappedTLS returns the *tls.Conn under the request's connection
// wrappers, or nil.
func wrappedTLS(r *http.Request) *tls.Conn {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	return tlsconn.Unwrap(c)
}
