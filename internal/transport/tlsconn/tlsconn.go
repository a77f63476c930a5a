// Package tlsconn finds the TLS connection under a connection's wrappers,
// for transports that learn of TLS from the connection they serve: a
// listener that dispatches connections by their first bytes (the
// universal transport) hands them on wrapped after the TLS handshake.
package tlsconn

import (
	"crypto/tls"
	"crypto/x509"
	"net"
)

// Unwrap returns the *tls.Conn that c is or wraps (each wrapper giving
// the connection under it by a NetConn method), or nil when there is
// none.
func Unwrap(c net.Conn) *tls.Conn {
	for c != nil {
		if tc, ok := c.(*tls.Conn); ok {
			return tc
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return nil
		}
		c = u.NetConn()
	}
	return nil
}

// ClientCert says whether c runs over TLS, and returns the client's
// certificate when it gave one (its handshake must be done).
func ClientCert(c net.Conn) (isTLS bool, cert *x509.Certificate) {
	tc := Unwrap(c)
	if tc == nil {
		return false, nil
	}
	if certs := tc.ConnectionState().PeerCertificates; len(certs) > 0 {
		cert = certs[0]
	}
	return true, cert
}
