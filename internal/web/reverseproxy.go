package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/dotsegment"
	"github.com/junction-wamp/junction/internal/wsupgrade"
)

// Defaults of ReverseProxyOptions.
const (
	DefaultReverseProxyPort    = 80
	DefaultReverseProxyTimeout = 60 * time.Second
	// reverseProxyDialTimeout is Twisted's TCP connect timeout, which
	// Crossbar's proxy inherits.
	reverseProxyDialTimeout = 30 * time.Second
)

// ReverseProxyOptions configures a ReverseProxy. The zero value plus Host
// is valid.
type ReverseProxyOptions struct {
	// Host of the upstream web server (a name, an IPv4 or an IPv6 address,
	// with or without brackets). Required. The upstream speaks plain HTTP.
	Host string
	// Port of the upstream; 0 means 80.
	Port int
	// Path is put in front of the path below the mount point, joined with
	// exactly one "/": with Path "/base", "/mnt/sub" on a proxy mounted at
	// "mnt" goes to "/base/sub" and "/mnt" to "/base". A missing leading
	// "/" is added and trailing ones are dropped. It is a URL path; "%"
	// escapes in it are kept as written.
	Path string
	// ForwardedPort, when non-zero, is sent as X-Forwarded-Port instead of
	// the port the request arrived on (Crossbar's forwarded_port: useful
	// behind a load balancer or NAT that changes the port).
	ForwardedPort int
	// ForwardedProto, "http" or "https" when set, is sent as
	// X-Forwarded-Proto instead of the scheme the request arrived with
	// (Crossbar's forwarded_proto: useful behind a TLS terminator).
	ForwardedProto string
	// Timeout bounds the wait for the upstream's response headers after
	// the request is written (504 when exceeded); 0 means
	// DefaultReverseProxyTimeout. It configures the proxy's own
	// connections only: with Transport set, that transport's own timeouts
	// apply.
	Timeout time.Duration
	// Transport, when set, sends every upstream request, through
	// httputil.ReverseProxy; nil means the proxy's own connections (see
	// ReverseProxy).
	Transport http.RoundTripper
	// Dial, when set, makes the proxy's own upstream connections instead
	// of a TCP dial to Host and Port (which then only name the upstream in
	// its Host header): an upstream on a Unix socket, for one. Its error
	// should be a *net.OpError whose Op is "dial" when the upstream cannot
	// be reached, so that the client gets 502 "upstream unreachable".
	// Unused with Transport set.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Logger receives upstream failures; nil discards them.
	Logger *slog.Logger
}

// ReverseProxy is the "reverseproxy" path service: every request below its
// mount point is sent to the upstream with its method, remaining path
// (behind Path), query, headers and streamed body, and the upstream's
// answer is streamed back. It is safe for concurrent use; its fields are
// set once by NewReverseProxy.
//
// What the upstream receives:
//   - the path below the mount point with the encoding the client used
//     ("%2F" stays "%2F"), behind Path. A path that an upstream could read
//     as climbing out of Path is refused with 400 (dotsegment.Check): a
//     "." or ".." segment (encoded or not, between slashes or
//     backslashes), also with ";" parameters ("..;", which Tomcat and
//     Spring read as "..") or encoded more than once ("%252e%252e"), and
//     a slash or backslash encoded more than once ("%252f");
//   - the raw query, unchanged (httputil's removal of unparsable query
//     parameters is undone: this proxy does not interpret the query);
//   - Host: the upstream's host, with ":port" unless the port is 80, as
//     Crossbar sends it; the client's Host goes in X-Forwarded-Host
//     (omitted when the request had none);
//   - hop-by-hop headers removed (Connection and the headers it names,
//     Keep-Alive, TE except "trailers", Transfer-Encoding, Upgrade and so
//     on), except that a WebSocket upgrade keeps "Connection: Upgrade" and
//     "Upgrade: websocket" and then passes through in both directions. An
//     upgrade to any other protocol (h2c, for one) is refused with 400: it
//     would turn the connection into a tunnel to the upstream, outside Path
//     and without X-Forwarded-* headers;
//   - X-Forwarded-For: the client's X-Forwarded-For values followed by the
//     direct peer's IP (appended, where Crossbar overwrites it);
//     X-Real-IP: the direct peer's IP (replacing any sent by the client);
//   - X-Forwarded-Proto and X-Forwarded-Port: see ForwardedProto and
//     ForwardedPort; values sent by the client are replaced, as is a
//     Forwarded header (dropped).
//
// The request body is read while the answer is written (full duplex): an
// upstream may answer before the upload ends without net/http draining or
// cutting it. The answer's status, headers (less hop-by-hop ones),
// informational (1xx) answers, body and trailers are passed on as they
// come; event streams and bodies of unknown length are flushed as they
// arrive.
//
// With ReverseProxyOptions.Transport nil, GET and HEAD requests without a
// body or upgrade take the direct path: the request head is written from
// the client's request onto a pooled persistent upstream connection, and
// the answer is copied to the client, on the handler's goroutine (no
// httputil.ReverseProxy, no http.Transport, no goroutine per connection;
// about 10 % less CPU per request, as docs/BENCHMARKS.md measured: 37.3
// against 41.1 µs). The answer's head is read by the proxy's own parser
// when it has the shape of nearly every answer to a GET (HTTP/1.1, one
// Content-Length, plain end-to-end fields; see readSimple), straight into
// the client's answer header when nothing is in it yet, by
// http.ReadResponse otherwise, with the same result. A client that goes away closes the
// upstream connection of an exchange still waiting on it (for the
// answer, for the rest of its body); an answer that arrives whole within
// 250 ms costs no watch on the request's context. A pooled connection
// that the upstream closed while it was idle is retried once on a new
// one. Every other request goes through httputil.ReverseProxy and a
// pooled http.Transport. Both keep up to 256 idle connections for 90 s.
//
// An unreachable upstream (refused connection, failed DNS lookup, broken
// connection) gives 502 (Crossbar sends 501), an upstream that does not
// answer in time 504, each with a short JSON body and a warning in the log.
type ReverseProxy struct {
	proxy     *httputil.ReverseProxy
	conns     *upstreamConns  // the direct path's; nil with Options.Transport
	transport *http.Transport // httputil's; nil with Options.Transport
	upstream  string          // host[:port] of the upstream, also its Host header
	prefix    string          // escaped Path, without trailing "/"; "" or "/..."
	prefixDec string          // prefix decoded
	fwdPort   string          // X-Forwarded-Port override, "" if none
	fwdProto  string          // X-Forwarded-Proto override, "" if none
	log       *slog.Logger
	upgraded  upgradeSet // upgrades passing through, for Shutdown
	lastPort  atomic.Pointer[portText]
	// dialer makes the proxy's own TCP connections; nil with
	// Options.Transport or Options.Dial (the loop engine hands their
	// requests to h1).
	dialer *net.Dialer
	loops  loopPools // the loop engine's connections to the upstream
}

// portText is a port and its decimal form.
type portText struct {
	port int
	text string
}

var _ Proxy = (*ReverseProxy)(nil)

// NewReverseProxy checks o and returns the proxy.
func NewReverseProxy(o ReverseProxyOptions) (*ReverseProxy, error) {
	upstream, err := upstreamHost(o.Host, orDefault(o.Port, DefaultReverseProxyPort))
	if err != nil {
		return nil, err
	}
	prefix, err := upstreamPrefix(o.Path)
	if err != nil {
		return nil, err
	}
	p := &ReverseProxy{upstream: upstream, prefix: prefix, log: o.Logger}
	p.prefixDec, _ = url.PathUnescape(prefix) // upstreamPrefix made sure it decodes
	if p.fwdPort, p.fwdProto, err = forwardedOverrides(o); err != nil {
		return nil, err
	}
	timeout := orDefault(o.Timeout, DefaultReverseProxyTimeout)
	if timeout < 0 {
		return nil, fmt.Errorf("%w: reverseproxy timeout %v: must be >= 0", ErrBadOption, o.Timeout)
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.log = p.log.With("upstream", upstream)
	p.proxy = p.httputilProxy(o.Transport, o.Dial, timeout)
	return p, nil
}

// httputilProxy returns the httputil.ReverseProxy of the requests that do
// not take the direct path, sending them with transport; with transport
// nil, it makes the proxy's own connections, dialed by dial (nil: TCP):
// those of the direct path and an http.Transport.
func (p *ReverseProxy) httputilProxy(transport http.RoundTripper, dial dialFunc, timeout time.Duration) *httputil.ReverseProxy {
	if transport == nil {
		if dial == nil {
			p.dialer = newUpstreamDialer()
			dial = p.dialer.DialContext
		}
		p.conns = newUpstreamConns(p.upstream, dial, timeout)
		p.transport = newUpstreamTransport(dial, timeout)
		transport = p.transport
	}
	return &httputil.ReverseProxy{
		Rewrite:      p.rewrite,
		Transport:    transport,
		ErrorHandler: p.serveError,
		ErrorLog:     slog.NewLogLogger(p.log.Handler(), slog.LevelWarn),
		BufferPool:   copyBuffers,
	}
}

// loopable reports whether the loop engine can serve p's requests: p
// makes its own TCP connections.
func (p *ReverseProxy) loopable() bool { return p.dialer != nil }

// upstreamHost checks host and port and returns the URL host: "host" when
// port is 80, else "host:port" (IPv6 addresses in brackets).
func upstreamHost(host string, port int) (string, error) {
	if port < 1 || port > 65535 {
		return "", fmt.Errorf("%w: reverseproxy port %d: must be in 1..65535", ErrBadOption, port)
	}
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.Contains(h, ":") && net.ParseIP(h) == nil {
		return "", fmt.Errorf("%w: reverseproxy host %q: not a host name or IP address (give the port in port)", ErrBadOption, host)
	}
	hostport := net.JoinHostPort(h, strconv.Itoa(port))
	if port == 80 {
		hostport = strings.TrimSuffix(hostport, ":80")
	}
	u, err := url.Parse("http://" + hostport)
	if h == "" || err != nil || u.Host != hostport || u.User != nil {
		return "", fmt.Errorf("%w: reverseproxy host %q: not a host name or IP address", ErrBadOption, host)
	}
	return hostport, nil
}

// upstreamPrefix returns the escaped form of path with one leading "/" and
// no trailing "/" ("" for an empty or "/" path).
func upstreamPrefix(path string) (string, error) {
	p := strings.TrimRight(path, "/")
	if p == "" {
		return "", nil
	}
	if p[0] != '/' {
		p = "/" + p
	}
	u, err := url.Parse(p)
	if err != nil || strings.ContainsAny(p, "?#") || strings.HasPrefix(p, "//") {
		return "", fmt.Errorf("%w: reverseproxy path %q: not a URL path", ErrBadOption, path)
	}
	return u.EscapedPath(), nil
}

// forwardedOverrides checks ForwardedPort and ForwardedProto.
func forwardedOverrides(o ReverseProxyOptions) (port, proto string, err error) {
	if o.ForwardedPort < 0 || o.ForwardedPort > 65535 {
		return "", "", fmt.Errorf("%w: reverseproxy forwarded_port %d: must be 0 (unset) or in 1..65535", ErrBadOption, o.ForwardedPort)
	}
	if o.ForwardedPort > 0 {
		port = strconv.Itoa(o.ForwardedPort)
	}
	switch o.ForwardedProto {
	case "", "http", "https":
	default:
		return "", "", fmt.Errorf("%w: reverseproxy forwarded_proto %q: must be http or https", ErrBadOption, o.ForwardedProto)
	}
	return port, o.ForwardedProto, nil
}

// newUpstreamTransport returns the pooled http.Transport of one proxy, for
// the requests that do not take the direct path (bodies, upgrades),
// making its connections with dial. It
// never adds Accept-Encoding (the client's passes through) and keeps more
// idle connections per host than http.DefaultTransport, since all its
// requests go to one host.
func newUpstreamTransport(dial dialFunc, timeout time.Duration) *http.Transport {
	return &http.Transport{
		Proxy:                 nil, // never an environment proxy
		DialContext:           dial,
		MaxIdleConns:          upstreamMaxIdle,
		MaxIdleConnsPerHost:   upstreamMaxIdle,
		IdleConnTimeout:       upstreamIdleTimeout,
		ResponseHeaderTimeout: timeout,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
}

// copyBuffers lends the 64 KiB buffers that copy response bodies, shared
// by every proxy (httputil would allocate one per request). Safe for
// concurrent use.
var copyBuffers = &bufferPool{}

var _ httputil.BufferPool = copyBuffers

type bufferPool struct{ pool sync.Pool } // of *[]byte

// Get and Put are httputil's; Put boxes the slice it is given.
func (b *bufferPool) Get() []byte { return *b.get() }

func (b *bufferPool) Put(buf []byte) { b.pool.Put(&buf) }

// get and put lend the buffer in its box, which put takes back: no
// allocation once the pool has buffers.
func (b *bufferPool) get() *[]byte {
	if p, ok := b.pool.Get().(*[]byte); ok {
		return p
	}
	buf := make([]byte, 64<<10)
	return &buf
}

func (b *bufferPool) put(p *[]byte) { b.pool.Put(p) }

// Shutdown ends the upgrades passing through (WebSockets), and those
// still waiting for the upstream's answer, closing the client's and the
// upstream's connections, and closes the proxy's idle upstream
// connections; later upgrade requests are answered 503, other requests
// still go through. The upgraded protocol is opaque to the proxy, so
// nothing is said before the connections close. It does not wait, so it
// never returns an error.
func (p *ReverseProxy) Shutdown(context.Context) error {
	p.upgraded.closeAll()
	p.loops.closeIdle()
	if p.conns != nil {
		p.conns.closeIdle()
		p.transport.CloseIdleConnections()
	}
	return nil
}

// ServeHTTP refuses what must not reach the upstream, and proxies the rest
// (see ReverseProxy).
func (p *ReverseProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if body := refusal(r); body != "" {
		writeSmallJSON(w, r, http.StatusBadRequest, body)
		return
	}
	if p.direct(r) {
		p.serveDirect(w, r)
		return
	}
	_ = http.NewResponseController(w).EnableFullDuplex() // best effort: not on every writer
	if _, upgrade := r.Header["Upgrade"]; upgrade {
		p.serveUpgrade(w, r)
		return
	}
	p.proxy.ServeHTTP(w, r)
}

// refusal returns the JSON body of the 400 answer to a request that must
// not reach the upstream, "" for one that may: its path could climb out of
// Path (a segment that some upstream could read as "." or "..", see
// dotsegment.Check), or it asks to upgrade to anything but a WebSocket.
func refusal(r *http.Request) string {
	if dotsegment.Check(r.URL.Path) != nil {
		return `{"error":"bad request","reason":"dot segment in path"}`
	}
	if up, ok := r.Header["Upgrade"]; ok && !onlyWebSocket(up) {
		return `{"error":"bad request","reason":"only WebSocket upgrades are proxied"}`
	}
	return ""
}

// onlyWebSocket reports whether the Upgrade header's lines name the
// WebSocket protocol and nothing else.
func onlyWebSocket(lines []string) bool {
	n := 0
	for t := range wsupgrade.Tokens(lines) {
		if !strings.EqualFold(t, "websocket") {
			return false
		}
		n++
	}
	return n > 0
}

// rewrite makes the upstream request of the httputil path; see
// ReverseProxy for what it sends.
func (p *ReverseProxy) rewrite(pr *httputil.ProxyRequest) {
	out := pr.Out
	out.URL.Scheme, out.URL.Host, out.URL.User = "http", p.upstream, nil
	out.URL.Path, out.URL.RawPath = p.upstreamPath(pr.In.URL)
	out.URL.RawQuery = pr.In.URL.RawQuery
	out.Host = "" // the Host header is URL.Host: the upstream's
	// httputil removed X-Forwarded-For, -Host, -Proto and Forwarded.
	out.Header.Del("X-Forwarded-Port")
	out.Header.Del("X-Real-Ip")
	for _, f := range p.forwarding(pr.In) {
		if f.value != "" {
			out.Header[f.name] = []string{f.value}
		}
	}
}

// upstreamPath joins the prefix and the path below the mount point,
// returning the decoded and escaped forms.
func (p *ReverseProxy) upstreamPath(in *url.URL) (path, rawPath string) {
	return p.joinPath(in.Path, in.EscapedPath())
}

// joinPath is upstreamPath of the path below the mount point, decoded
// (rest) and escaped (restRaw).
func (p *ReverseProxy) joinPath(rest, restRaw string) (path, rawPath string) {
	switch {
	case rest == "" && p.prefix == "":
		return "/", "/"
	case rest != "" && rest[0] != '/':
		rest, restRaw = "/"+rest, "/"+restRaw
	}
	return p.prefixDec + rest, p.prefix + restRaw
}

// field is one header field the proxy sets on an upstream request.
type field struct{ name, value string }

// forwarding returns what the upstream is told about the client, in
// headers that replace any the client sent: X-Forwarded-For (the client's
// values and the peer's IP), X-Forwarded-Host, X-Forwarded-Proto,
// X-Forwarded-Port and X-Real-Ip. An empty value means the header is not
// sent.
func (p *ReverseProxy) forwarding(in *http.Request) [5]field {
	ip, _, err := net.SplitHostPort(in.RemoteAddr)
	if err != nil {
		ip = ""
	}
	return p.forwardingOf(ip, in.Header["X-Forwarded-For"], in.Host, in.TLS != nil, p.forwardedPort(in))
}

// forwardingOf is forwarding for a client at ip ("" if unknown) that sent
// the X-Forwarded-For lines prior and Host host, over TLS or not, to the
// local port port.
func (p *ReverseProxy) forwardingOf(ip string, prior []string, host string, tls bool, port string) [5]field {
	xff := ip
	if len(prior) > 0 && ip != "" {
		xff = strings.Join(prior, ", ") + ", " + ip
	}
	proto := p.fwdProto
	if proto == "" {
		proto = "http"
		if tls {
			proto = "https"
		}
	}
	return [5]field{
		{"X-Forwarded-For", xff},
		{"X-Forwarded-Host", host},
		{"X-Forwarded-Proto", proto},
		{"X-Forwarded-Port", port},
		{"X-Real-Ip", ip},
	}
}

// forwardingHeader reports whether the header key (canonical) is one the
// proxy sets itself (see forwarding), or Forwarded, which it drops.
func forwardingHeader(key string) bool {
	switch key {
	case "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Port", "X-Real-Ip", "Forwarded":
		return true
	}
	return false
}

// forwardedPort is ForwardedPort if set, else the port of the local address
// the request arrived on ("" if unknown).
func (p *ReverseProxy) forwardedPort(in *http.Request) string {
	if p.fwdPort != "" {
		return p.fwdPort
	}
	switch addr := in.Context().Value(http.LocalAddrContextKey).(type) {
	case *net.TCPAddr:
		return p.portText(addr.Port)
	case net.Addr:
		if _, port, err := net.SplitHostPort(addr.String()); err == nil {
			return port
		}
	}
	return ""
}

// portText is strconv.Itoa(port), remembered for the last port asked:
// that of the listener, for nearly every request.
func (p *ReverseProxy) portText(port int) string {
	if last := p.lastPort.Load(); last != nil && last.port == port {
		return last.text
	}
	text := strconv.Itoa(port)
	p.lastPort.Store(&portText{port, text})
	return text
}

// serveError answers a failed upstream exchange: 504 for a timeout, 502
// otherwise, logged; only a short reason reaches the client. After a
// WebSocket hijack the write fails harmlessly.
func (p *ReverseProxy) serveError(w http.ResponseWriter, r *http.Request, err error) {
	status, body := p.upstreamFailed(r.Context(), r.Method, r.URL.EscapedPath(), err)
	writeSmallJSON(w, r, status, body)
}

// upstreamFailed logs the failure of an upstream exchange for a request
// with method and (escaped) path below the mount point, whose context is
// ctx, and returns the status and the body of its answer.
func (p *ReverseProxy) upstreamFailed(ctx context.Context, method, path string, err error) (int, string) {
	level, status, body := classifyUpstreamError(ctx, err)
	p.log.LogAttrs(ctx, level, "web: reverseproxy: upstream request failed",
		slog.String("method", method),
		slog.String("path", path), // no query: it may carry secrets
		slog.Int("status", status),
		slog.String("error", err.Error()))
	return status, body
}

// classifyUpstreamError maps err, the failure of an exchange for a
// request whose context is ctx, to a log level, a status and a body.
func classifyUpstreamError(ctx context.Context, err error) (slog.Level, int, string) {
	var netErr net.Error
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, ErrBodyTimeout): // the client stalled its body
		return slog.LevelDebug, http.StatusRequestTimeout, `{"error":"request timeout","reason":"request body stalled"}`
	case ctx.Err() != nil: // the client went away; nobody reads this
		return slog.LevelDebug, http.StatusBadGateway, `{"error":"bad gateway","reason":"request canceled"}`
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return slog.LevelWarn, http.StatusGatewayTimeout, `{"error":"gateway timeout","reason":"upstream did not answer in time"}`
	case errors.As(err, &dnsErr), errors.As(err, &opErr) && opErr.Op == "dial":
		return slog.LevelWarn, http.StatusBadGateway, `{"error":"bad gateway","reason":"upstream unreachable"}`
	}
	return slog.LevelWarn, http.StatusBadGateway, `{"error":"bad gateway","reason":"upstream failed"}`
}
