package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/junction-wamp/junction/internal/transport/longpoll"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// ErrDialOptions is wrapped by the errors of Dial and NewDialer's Dialer
// for a URL or DialOptions that can never work: a malformed URL, an
// unknown scheme, an unknown serializer, a negative size or interval.
// Connect returns it at once, even with ReconnectOptions.RetryFirst.
var ErrDialOptions = errors.New("client: invalid dial URL or options")

// serializers are the names DialOptions.Serializer accepts, in the order a
// WebSocket dial offers them when none is set.
var serializers = []string{"cbor", "msgpack", "json", "ubjson"}

// DialOptions says how Dial connects. The zero value is ready: WebSocket
// offers every serializer, RawSocket speaks MessagePack, TLS uses the
// system roots, messages up to 1 MiB, no keepalive pings.
type DialOptions struct {
	// Serializer is "json", "msgpack", "cbor" or "ubjson". Empty: a
	// WebSocket dial offers all four (cbor, msgpack, json, ubjson, the
	// router picks), a RawSocket dial speaks msgpack.
	Serializer string
	// TLSConfig is used for wss://, rss:// and tls:// URLs (nil: the
	// defaults, verifying the router against the system roots). Its
	// ServerName defaults to the URL's host. Set Certificates (or
	// GetClientCertificate) to authenticate with a client certificate
	// (authmethod "tls" on the router).
	TLSConfig *tls.Config
	// Header holds extra headers of the WebSocket opening handshake
	// (Origin, Cookie, Authorization, ...), or of every long-poll request;
	// RawSocket has none and ignores it.
	Header http.Header
	// MaxMessageSize is the longest message accepted from the router;
	// 0 means 1 MiB. RawSocket rounds it up to a power of two between
	// 512 bytes and 16 MiB, and announces it to the router, which then
	// sends nothing longer: a longer result fails its call with
	// wamp.error.payload_size_exceeded, a longer invocation fails its
	// caller's call, a longer event is not sent, and the session goes on.
	// WebSocket announces nothing: a longer message ends the session.
	MaxMessageSize int
	// PingInterval, when > 0, pings the router after that long without
	// traffic; the connection is closed when nothing arrives within
	// PingTimeout after the ping (0 means PingInterval). 0 sends no pings.
	PingInterval time.Duration
	PingTimeout  time.Duration
}

// Dial connects to the router at rawURL and returns the connection, ready
// for Join. ctx bounds the connection and the transport's handshake.
//
// URL schemes:
//
//	ws://host[:port]/path, wss://...      WebSocket (over TLS for wss)
//	ws+unix:///path/to.sock[:/http/path]  WebSocket over a Unix socket
//	rs://host:port, tcp://host:port       RawSocket over TCP
//	rss://host:port, tls://host:port      RawSocket over TLS
//	unix:///path/to.sock                  RawSocket over a Unix socket
//	http://host[:port]/path, https://...  HTTP long-poll (Crossbar's longpoll
//	                                      service, for a network that lets
//	                                      only plain HTTP requests through)
//
// Over long-poll, the serializer is JSON unless Serializer names another,
// Header goes with every request, and MaxMessageSize and the pings do not
// apply (each message is an HTTP request or response, bounded by the
// router's service).
//
// A bad URL or option gives an error wrapping ErrDialOptions.
func Dial(ctx context.Context, rawURL string, opts DialOptions) (wamp.Peer, error) {
	dial, err := parseTarget(rawURL, &opts)
	if err != nil {
		return nil, err
	}
	return dial(ctx)
}

// NewDialer returns the Dialer of Connect that dials rawURL with opts (see
// Dial) on every connection. The URL and opts are checked once, now: when
// they are bad, every dial returns the same error, wrapping ErrDialOptions.
// opts is copied; its TLSConfig and Header must not be modified after.
func NewDialer(rawURL string, opts DialOptions) Dialer {
	dial, err := parseTarget(rawURL, &opts)
	if err != nil {
		return func(context.Context) (wamp.Peer, error) { return nil, err }
	}
	return dial
}

// parseTarget checks rawURL and opts and returns the function that dials
// them.
func parseTarget(rawURL string, opts *DialOptions) (Dialer, error) {
	if err := checkOptions(opts); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrDialOptions, rawURL, err)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDialOptions, err)
	}
	dial, err := dialFunc(u, *opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrDialOptions, rawURL, err)
	}
	return dial, nil
}

// dialFunc picks the transport of u's scheme.
func dialFunc(u *url.URL, opts DialOptions) (Dialer, error) {
	switch u.Scheme {
	case "ws", "wss":
		return webSocketDial(u, opts)
	case "ws+unix":
		return webSocketUnixDial(u, opts)
	case "rs", "tcp":
		return rawSocketTCPDial(u, opts, false)
	case "rss", "tls":
		return rawSocketTCPDial(u, opts, true)
	case "unix":
		return rawSocketUnixDial(u, opts)
	case "http", "https":
		return longPollDial(u, opts)
	case "":
		return nil, errors.New("no scheme (want ws, wss, ws+unix, rs, rss, tcp, tls, unix, http or https)")
	}
	return nil, fmt.Errorf("unknown scheme %q (want ws, wss, ws+unix, rs, rss, tcp, tls, unix, http or https)", u.Scheme)
}

// checkOptions refuses what no dial can use.
func checkOptions(opts *DialOptions) error {
	switch {
	case opts.Serializer != "" && !slices.Contains(serializers, opts.Serializer):
		return fmt.Errorf("unknown serializer %q (want %s)", opts.Serializer, strings.Join(serializers, ", "))
	case opts.MaxMessageSize < 0:
		return fmt.Errorf("MaxMessageSize %d: must be >= 0", opts.MaxMessageSize)
	case opts.PingInterval < 0 || opts.PingTimeout < 0:
		return errors.New("PingInterval and PingTimeout must be >= 0")
	}
	return nil
}

func webSocketDial(u *url.URL, opts DialOptions) (Dialer, error) {
	if u.Host == "" {
		return nil, errors.New("no host")
	}
	wo := webSocketOptions(opts)
	if u.Scheme == "ws" {
		wo.TLSConfig = nil
	}
	s := u.String()
	return func(ctx context.Context) (wamp.Peer, error) {
		return websocket.Dial(ctx, s, wo)
	}, nil
}

// webSocketUnixDial dials ws+unix:///path/to.sock[:/http/path]: the socket
// path ends at the first colon; the handshake asks for the HTTP path after
// it ("/" without) on host "localhost".
func webSocketUnixDial(u *url.URL, opts DialOptions) (Dialer, error) {
	if u.Host != "" {
		return nil, fmt.Errorf("host %q in a ws+unix URL (want ws+unix:///path/to.sock)", u.Host)
	}
	sock, path, _ := strings.Cut(u.Path, ":")
	if sock == "" {
		return nil, errors.New("no socket path")
	}
	if path == "" {
		path = "/"
	}
	hs := url.URL{Scheme: "ws", Host: "localhost", Path: path, RawQuery: u.RawQuery}
	wo := webSocketOptions(opts)
	wo.TLSConfig = nil
	wo.NetDial = func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}
	s := hs.String()
	return func(ctx context.Context) (wamp.Peer, error) {
		return websocket.Dial(ctx, s, wo)
	}, nil
}

func webSocketOptions(opts DialOptions) websocket.DialOptions {
	protocols := make([]string, 0, len(serializers))
	for _, name := range serializers {
		if opts.Serializer == "" || opts.Serializer == name {
			protocols = append(protocols, "wamp.2."+name)
		}
	}
	return websocket.DialOptions{
		Subprotocols: protocols, TLSConfig: opts.TLSConfig, Header: opts.Header,
		MaxMessageSize: opts.MaxMessageSize, PingInterval: opts.PingInterval, PingTimeout: opts.PingTimeout,
	}
}

// rawSocketTCPDial dials rs://host:port (over TLS with overTLS).
func rawSocketTCPDial(u *url.URL, opts DialOptions, overTLS bool) (Dialer, error) {
	if u.Hostname() == "" || u.Port() == "" {
		return nil, fmt.Errorf("want %s://host:port", u.Scheme)
	}
	if u.Path != "" && u.Path != "/" {
		return nil, fmt.Errorf("path %q: RawSocket has no paths", u.Path)
	}
	ro := rawSocketOptions(opts)
	if overTLS {
		ro.TLSConfig = &tls.Config{}
		if opts.TLSConfig != nil {
			ro.TLSConfig = opts.TLSConfig.Clone()
		}
		if ro.TLSConfig.ServerName == "" {
			ro.TLSConfig.ServerName = u.Hostname()
		}
	}
	return func(ctx context.Context) (wamp.Peer, error) {
		return rawsocket.Dial(ctx, "tcp", u.Host, ro)
	}, nil
}

// rawSocketUnixDial dials unix:///path/to.sock (or unix:relative.sock).
func rawSocketUnixDial(u *url.URL, opts DialOptions) (Dialer, error) {
	if u.Host != "" {
		return nil, fmt.Errorf("host %q in a unix URL (want unix:///path/to.sock)", u.Host)
	}
	path := u.Path
	if path == "" {
		path = u.Opaque
	}
	if path == "" {
		return nil, errors.New("no socket path")
	}
	ro := rawSocketOptions(opts)
	return func(ctx context.Context) (wamp.Peer, error) {
		return rawsocket.Dial(ctx, "unix", path, ro)
	}, nil
}

// longPollDial dials http(s)://host/path, the URL of a long-poll service:
// one HTTP client per dial, its TLS from opts.TLSConfig.
func longPollDial(u *url.URL, opts DialOptions) (Dialer, error) {
	if u.Host == "" {
		return nil, errors.New("no host")
	}
	protocol := "wamp.2.json"
	if opts.Serializer != "" {
		protocol = "wamp.2." + opts.Serializer
	}
	base := strings.TrimSuffix(u.String(), "/")
	return func(ctx context.Context) (wamp.Peer, error) {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if opts.TLSConfig != nil && u.Scheme == "https" {
			tr.TLSClientConfig = opts.TLSConfig.Clone()
		}
		hc := &http.Client{Transport: withHeader{tr, opts.Header}}
		p, err := longpoll.Dial(ctx, base, protocol, hc)
		if err != nil {
			tr.CloseIdleConnections()
			return nil, err
		}
		return p, nil
	}, nil
}

// withHeader adds header to every request it carries.
type withHeader struct {
	next   http.RoundTripper
	header http.Header
}

func (w withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(w.header) > 0 {
		r = r.Clone(r.Context())
		for k, v := range w.header {
			r.Header[k] = append(r.Header[k], v...)
		}
	}
	return w.next.RoundTrip(r)
}

func rawSocketOptions(opts DialOptions) rawsocket.DialOptions {
	return rawsocket.DialOptions{Serializer: opts.Serializer, MaxMessageSize: opts.MaxMessageSize,
		PingInterval: opts.PingInterval, PingTimeout: opts.PingTimeout}
}
