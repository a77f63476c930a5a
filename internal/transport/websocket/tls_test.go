package websocket

import (
	"crypto/tls"
	"crypto/x509"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func TestDialTLS(t *testing.T) {
	a := newAttacher()
	h, err := NewHandler(Options{Attacher: a})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(h)
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	url := "wss" + strings.TrimPrefix(srv.URL, "https")
	p := dial(t, url, DialOptions{TLSConfig: &tls.Config{RootCAs: roots}, Subprotocols: []string{"wamp.2.cbor"}})
	s := <-a.Sessions
	if info := s.Peer.Info(); !info.TLS || info.Serializer != "cbor" {
		t.Fatalf("server Info = %+v", info)
	}
	if !p.Info().TLS {
		t.Fatalf("client Info = %+v", p.Info())
	}
	want := &wamp.Goodbye{Details: wamp.Dict{}, Reason: "a.b"}
	p.Send(want)
	if m, err := s.Peer.Recv(); err != nil || m.(*wamp.Goodbye).Reason != want.Reason {
		t.Fatalf("Recv = %v, %v", m, err)
	}
	close(s.Release)
	<-s.Ended
}
