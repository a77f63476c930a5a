package websocket

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/gobwas/ws"

	"github.com/junction-wamp/junction/internal/transport/outbox"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// DialOptions configures Dial. The zero value offers every subprotocol.
type DialOptions struct {
	// Subprotocols offered, in preference order; default codec.Subprotocols().
	Subprotocols   []string
	TLSConfig      *tls.Config // for wss:// URLs; nil uses the defaults
	Header         http.Header // extra handshake headers (Origin, Cookie, ...)
	MaxMessageSize int         // default 1 MiB
	PingInterval   time.Duration
	PingTimeout    time.Duration
	Outbox         outbox.Options
	// NetDial, if set, makes the connection instead of a TCP dial to the
	// URL's host (a Unix socket, for example); the URL still names the host
	// for the handshake.
	NetDial func(ctx context.Context, network, addr string) (net.Conn, error)
	// OnResponseHeader, if set, is called with each header of the
	// server's handshake response (a Set-Cookie to keep, for example),
	// before Dial returns.
	OnResponseHeader func(name, value string)
	// RawPayloads keeps received payloads as they came (wamp.Raw, decoded
	// only when read), as a server does: for a relay that forwards
	// messages without reading them (a proxy worker's backend connection).
	// By default a client decodes every payload on receipt.
	RawPayloads bool
}

// readBufferSize is the client's read buffer.
const readBufferSize = 4096

// Dial connects to a ws:// or wss:// URL and returns the peer, with the codec
// of the subprotocol the server chose.
func Dial(ctx context.Context, url string, opts DialOptions) (wamp.Peer, error) {
	protocols := opts.Subprotocols
	if len(protocols) == 0 {
		protocols = codec.Subprotocols()
	}
	d := ws.Dialer{Protocols: protocols, TLSConfig: opts.TLSConfig, NetDial: opts.NetDial}
	if opts.Header != nil {
		d.Header = ws.HandshakeHeaderHTTP(opts.Header)
	}
	if f := opts.OnResponseHeader; f != nil {
		d.OnHeader = func(k, v []byte) error { f(string(k), string(v)); return nil }
	}
	conn, br, hs, err := d.Dial(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("websocket: dial %s: %w", url, err)
	}
	c, batched, ok := codec.Lookup(hs.Protocol)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("websocket: dial %s: server chose subprotocol %q", url, hs.Protocol)
	}
	if !opts.RawPayloads {
		c = codec.Eager(c)
	}
	if br == nil {
		br = bufio.NewReaderSize(conn, readBufferSize)
	}
	return newPeer(conn, br, nil, peerConfig{
		codec: c, batched: batched, client: true, remote: remote{addr: conn.RemoteAddr().String(), tls: isTLS(conn)},
		peerOptions: &peerOptions{
			maxSize: opts.MaxMessageSize, pingInterval: opts.PingInterval, pingTimeout: opts.PingTimeout, outbox: opts.Outbox,
		},
	}), nil
}

func isTLS(c net.Conn) bool {
	_, ok := c.(*tls.Conn)
	return ok
}
