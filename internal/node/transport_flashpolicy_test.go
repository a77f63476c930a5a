package node

import (
	"io"
	"net"
	"testing"
	"time"
)

// TestFlashPolicy: a policy request gets Crossbar's policy, anything else
// a closed connection.
func TestFlashPolicy(t *testing.T) {
	n, _ := startLogged(t, `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
		"transports": [
			{"type": "flashpolicy", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "allowed_ports": [8080, 9000]},
			{"type": "flashpolicy", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "allowed_domain": "a\"b.example"}]}]}`)
	tests := []struct {
		name, transport, request, want string
	}{
		{"ports", web0, "<policy-file-request/>\x00",
			`<?xml version="1.0"?><cross-domain-policy><allow-access-from domain="*" to-ports="8080,9000" /></cross-domain-policy>` + "\x00"},
		{"domain escaped, any port", "workers[0].transports[1]", "  <policy-file-request />\x00",
			`<?xml version="1.0"?><cross-domain-policy><allow-access-from domain="a&#34;b.example" to-ports="*" /></cross-domain-policy>` + "\x00"},
		{"not a policy request", web0, "GET / HTTP/1.1\r\n\r\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", address(t, n, tt.transport))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(testTimeout))
			if _, err := c.Write([]byte(tt.request)); err != nil {
				t.Fatal(err)
			}
			c.(*net.TCPConn).CloseWrite()
			got, err := io.ReadAll(c)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q,\nwant %q", got, tt.want)
			}
		})
	}
}
