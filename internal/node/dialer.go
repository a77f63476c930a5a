package node

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// ComponentDialer returns the client.Dialer of a container component's
// "transport"; dir is the node directory (for Unix socket paths and TLS
// files). Each dial is bounded by the endpoint's "timeout".
//
// WebSocket: the connection goes to the endpoint's host and port, and the
// handshake uses the path of "url". When the URL names another host:port,
// the endpoint wins (the URL's host is replaced), so the Host header is the
// endpoint's; over a Unix endpoint the URL's host is kept for the handshake.
// An endpoint "tls" makes the URL wss://, and RawSocket run over TLS.
func ComponentDialer(t *config.ComponentTransport, dir string) (client.Dialer, error) {
	return componentDialer(t, dir, false)
}

// componentDialer is ComponentDialer; with raw, the peers keep received
// payloads raw (a proxy's backends, whose messages are relayed unread).
func componentDialer(t *config.ComponentTransport, dir string, raw bool) (client.Dialer, error) {
	b := &builder{dir: dir}
	e := t.Endpoint
	switch t.Type {
	case "websocket":
		return b.webSocketDialer(t, raw)
	case "rawsocket":
		network, address := "unix", b.resolve(e.Path)
		if e.Type == "tcp" {
			network, address = tcpNetwork(e.Version), net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
		}
		opts := rawsocket.DialOptions{MaxMessageSize: t.MaxMessageSize, RawPayloads: raw}
		if e.TLS != nil {
			var err error
			if opts.TLSConfig, err = clientTLSConfig(e.TLS, e.Host, b.resolve); err != nil {
				return nil, err
			}
		}
		if len(t.Serializers) > 0 {
			opts.Serializer = t.Serializers[0]
		}
		return timed(e.Timeout, func(ctx context.Context) (wamp.Peer, error) {
			return rawsocket.Dial(ctx, network, address, opts)
		}), nil
	}
	return nil, fmt.Errorf("node: unknown component transport type %q", t.Type)
}

func (b *builder) webSocketDialer(t *config.ComponentTransport, raw bool) (client.Dialer, error) {
	target, err := b.webSocketTarget(t, false)
	if err != nil {
		return nil, err
	}
	opts := websocket.DialOptions{
		Subprotocols:   subprotocols(t.Serializers),
		MaxMessageSize: t.Options.MaxMessageSize,
		PingInterval:   t.Options.AutoPingInterval,
		PingTimeout:    t.Options.AutoPingTimeout,
		TLSConfig:      target.tls,
		NetDial:        target.netDial,
		RawPayloads:    raw,
	}
	return timed(t.Endpoint.Timeout, func(ctx context.Context) (wamp.Peer, error) {
		return websocket.Dial(ctx, target.url, opts)
	}), nil
}

// wsTarget is where a connecting WebSocket transport goes.
type wsTarget struct {
	url     string                                                            // see webSocketURL
	tls     *tls.Config                                                       // nil without the endpoint's "tls"
	netDial func(ctx context.Context, network, addr string) (net.Conn, error) // Unix endpoints; nil for TCP
}

// webSocketTarget maps a connecting WebSocket transport's endpoint and URL.
// With keepHost, the handshake names the URL's host and a TCP endpoint is
// dialled apart (the scheme still follows the endpoint's "tls"); without,
// see webSocketURL.
func (b *builder) webSocketTarget(t *config.ComponentTransport, keepHost bool) (wsTarget, error) {
	e := t.Endpoint
	u, err := webSocketURL(t)
	if err != nil {
		return wsTarget{}, err
	}
	var target wsTarget
	switch {
	case e.Type == "unix":
		target.netDial = dialTo("unix", b.resolve(e.Path))
	case keepHost:
		target.netDial = dialTo(tcpNetwork(e.Version), u.Host)
		orig, _ := url.Parse(t.URL) // parsed by webSocketURL
		u.Host = orig.Host
	}
	target.url = u.String()
	if e.TLS != nil {
		if target.tls, err = clientTLSConfig(e.TLS, e.Host, b.resolve); err != nil {
			return wsTarget{}, err
		}
	}
	return target, nil
}

// dialTo is a NetDial function that connects to address, whatever the
// handshake's URL names.
func dialTo(network, address string) func(ctx context.Context, _, _ string) (net.Conn, error) {
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, address)
	}
}

// webSocketURL is the URL a WebSocket component transport connects to:
// "url" with the endpoint's host and port (a Unix endpoint keeps the URL's
// host), and wss:// with TLS.
func webSocketURL(t *config.ComponentTransport) (*url.URL, error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, fmt.Errorf("node: url: %w", err)
	}
	if t.Endpoint.Type == "unix" {
		return u, nil
	}
	u.Host = net.JoinHostPort(t.Endpoint.Host, strconv.Itoa(t.Endpoint.Port))
	if t.Endpoint.TLS != nil {
		u.Scheme = "wss"
	}
	return u, nil
}

// componentURL names where a container component connects, for the logs:
// its WebSocket URL, "rs://host:port" for RawSocket over TCP, or
// "unix:path" for a Unix socket (relative to the node directory).
func componentURL(t *config.ComponentTransport) string {
	e := t.Endpoint
	switch {
	case e.Type == "unix":
		return "unix:" + e.Path
	case t.Type == "rawsocket":
		return "rs://" + net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
	}
	if u, err := webSocketURL(t); err == nil {
		return u.String()
	}
	return t.URL
}

// tcpNetwork is "tcp6" for IP version 6 and "tcp4" otherwise.
func tcpNetwork(version int) string {
	if version == 6 {
		return "tcp6"
	}
	return "tcp4"
}

// timed bounds every call of dial by d (none when d <= 0).
func timed(d time.Duration, dial client.Dialer) client.Dialer {
	if d <= 0 {
		return dial
	}
	return func(ctx context.Context) (wamp.Peer, error) {
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		return dial(ctx)
	}
}
