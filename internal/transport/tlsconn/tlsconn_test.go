package tlsconn

import (
	"crypto/tls"
	"net"
	"testing"
)

// wrapper wraps a connection the way the universal transport does.
type wrapper struct{ net.Conn }

func (w wrapper) NetConn() net.Conn { return w.Conn }

func TestUnwrap(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	tc := tls.Server(a, &tls.Config{})
	tests := []struct {
		name string
		conn net.Conn
		want *tls.Conn
	}{
		{"plain", a, nil},
		{"tls", tc, tc},
		{"wrapped tls", wrapper{tc}, tc},
		{"wrapped twice", wrapper{wrapper{tc}}, tc},
		{"wrapped plain", wrapper{a}, nil},
		{"nil", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unwrap(tt.conn); got != tt.want {
				t.Errorf("Unwrap = %v, want %v", got, tt.want)
			}
			isTLS, cert := ClientCert(tt.conn)
			if isTLS != (tt.want != nil) || cert != nil {
				t.Errorf("ClientCert = %v, %v; want %v, nil (no handshake, no certificate)", isTLS, cert, tt.want != nil)
			}
		})
	}
}
