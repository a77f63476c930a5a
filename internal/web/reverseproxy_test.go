package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/dotsegment"
)

// seenRequest is what echoUpstream saw, sent back as its JSON body.
type seenRequest struct {
	Method, URI, Host string
	Header            http.Header
	BodyLen           int64
}

// echoUpstream answers every request with the seenRequest it received, and
// a hop-by-hop response header that the proxy must drop.
func echoUpstream(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		w.Header().Set("Connection", "X-Up-Hop")
		w.Header().Set("X-Up-Hop", "dropped")
		w.Header().Set("X-Up", "kept")
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(seenRequest{r.Method, r.RequestURI, r.Host, r.Header, n})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// upstreamOptions returns options pointing at srv.
func upstreamOptions(t testing.TB, srv *httptest.Server) ReverseProxyOptions {
	host, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	return ReverseProxyOptions{Host: host, Port: p}
}

// mustProxy builds a proxy and shuts it down at the end of the test.
func mustProxy(t testing.TB, o ReverseProxyOptions) *ReverseProxy {
	t.Helper()
	p, err := NewReverseProxy(o)
	if err != nil {
		t.Fatalf("NewReverseProxy(%+v): %v", o, err)
	}
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p
}

// serveTree serves tree on a loopback test server and returns its address.
// It serves on the test's engine (see onEngines).
func serveTree(t testing.TB, tree http.Handler) string {
	return newFront(t, tree).Listener.Addr().String()
}

// rawDo sends the raw request text to addr and reads one response.
func rawDo(t testing.TB, addr, raw string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading response to %q: %v", raw, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// rawGet sends "GET target" with the given extra header lines.
func rawGet(t testing.TB, addr, target string, headers ...string) (*http.Response, []byte) {
	return rawRequest(t, addr, http.MethodGet, target, headers...)
}

// rawRequest sends a bodiless request with the given extra header lines.
func rawRequest(t testing.TB, addr, method, target string, headers ...string) (*http.Response, []byte) {
	raw := method + " " + target + " HTTP/1.1\r\nHost: front.test:8080\r\nConnection: close\r\n"
	for _, h := range headers {
		raw += h + "\r\n"
	}
	return rawDo(t, addr, raw+"\r\n")
}

// bodilessMethods are a method whose bodiless requests take the direct
// path (GET) and one whose requests go through httputil (DELETE): the
// tests of what the upstream receives run with both.
var bodilessMethods = []string{http.MethodGet, http.MethodDelete}

// getSeen is rawGet decoded by seen.
func getSeen(t testing.TB, addr, target string, headers ...string) seenRequest {
	t.Helper()
	resp, body := rawGet(t, addr, target, headers...)
	return seen(t, resp, body)
}

// doSeen is rawDo decoded by seen.
func doSeen(t testing.TB, addr, raw string) seenRequest {
	t.Helper()
	resp, body := rawDo(t, addr, raw)
	return seen(t, resp, body)
}

// seen decodes the echoUpstream body of a proxied response.
func seen(t testing.TB, resp *http.Response, body []byte) seenRequest {
	t.Helper()
	var s seenRequest
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, body %q", resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatalf("upstream body %q: %v", body, err)
	}
	return s
}

func TestReverseProxyPathMapping(t *testing.T) { onEngines(t, testReverseProxyPathMapping) }

func testReverseProxyPathMapping(t *testing.T) {
	up := echoUpstream(t)
	tests := []struct {
		mount, path, target, want string
	}{
		{"/", "", "/", "/"},
		{"/", "", "/login?x=1&y", "/login?x=1&y"},
		{"/", "/my_path", "/login", "/my_path/login"},
		{"/", "/my_path", "/", "/my_path/"},
		{"/", "/a b", "/x", "/a%20b/x"},
		{"/", "/", "/x/", "/x/"},
		{"api", "/my_path", "/api", "/my_path"},
		{"api", "/my_path", "/api/", "/my_path/"},
		{"api", "/my_path", "/api/a%20b/c", "/my_path/a%20b/c"},
		{"api", "/my_path", "/api?q=1", "/my_path?q=1"},
		{"api", "", "/api", "/"},
		{"api", "", "/api/", "/"},
		{"api", "", "/api/x/y/", "/x/y/"},
		{"api", "my_path//", "/api/x", "/my_path/x"},
		{"api", "/base/", "/api//x", "/base//x"},
		{"api", "/base", "/api/a%2Fb", "/base/a%2Fb"},
		{"api", "/b%2Fc", "/api/x", "/b%2Fc/x"},
		{"api", "/base", "/api/%E2%82%AC/...", "/base/%E2%82%AC/..."},
		{"api", "/base", "/api/x?a=1;b=2&c=%zz&d=%20", "/base/x?a=1;b=2&c=%zz&d=%20"},
		{"api", "/base", "/api/x?", "/base/x?"},
	}
	for _, tt := range tests {
		t.Run(tt.mount+tt.path+" "+tt.target, func(t *testing.T) {
			o := upstreamOptions(t, up)
			o.Path = tt.path
			tree := NewTree()
			mustMount(t, tree, tt.mount, mustProxy(t, o))
			addr := serveTree(t, tree)
			for _, method := range bodilessMethods {
				resp, body := rawRequest(t, addr, method, tt.target)
				if got := seen(t, resp, body); got.URI != tt.want || got.Method != method {
					t.Errorf("upstream got %s %q, want %s %q", got.Method, got.URI, method, tt.want)
				}
			}
		})
	}
}

func TestReverseProxyNestedMount(t *testing.T) { onEngines(t, testReverseProxyNestedMount) }

func testReverseProxyNestedMount(t *testing.T) {
	up := echoUpstream(t)
	o := upstreamOptions(t, up)
	o.Path = "/base"
	tree := NewTree()
	sub, err := tree.Sub("nested")
	if err != nil {
		t.Fatal(err)
	}
	mustMount(t, sub, "api", mustProxy(t, o))
	if got := getSeen(t, serveTree(t, tree), "/nested/api/x?y=z"); got.URI != "/base/x?y=z" {
		t.Errorf("upstream got %q", got.URI)
	}
}

// TestReverseProxyDotSegments: a path that some upstream could read as
// climbing out of Path is refused before it reaches the upstream, "..;"
// and paths encoded twice included (F13: "/app/..;/x" reached the
// upstream as it was); paths that only look alike go through.
func TestReverseProxyDotSegments(t *testing.T) { onEngines(t, testReverseProxyDotSegments) }

func testReverseProxyDotSegments(t *testing.T) {
	up := echoUpstream(t)
	o := upstreamOptions(t, up)
	o.Path = "/base"
	tree := NewTree()
	mustMount(t, tree, "api", mustProxy(t, o))
	mustMount(t, tree, "/", mustProxy(t, o))
	addr := serveTree(t, tree)
	tests := []struct {
		target  string
		refused bool
	}{
		{"/api/../secret", true},
		{"/api/./x", true},
		{"/api/%2e%2e/x", true},
		{"/api/%2E/x", true},
		{"/api/a%2F..%2Fb", true},
		{"/api/x/..", true},
		{"/../secret", true},
		{"/x/%2e%2e%2fsecret", true},
		{"/api/..;/x", true},
		{"/api/..;jsessionid=1/x", true},
		{"/api/.;/x", true},
		{"/api/%2e%2e;/x", true},
		{"/api/%2e%2e%3b/x", true},
		{"/api/%252e%252e/x", true},
		{"/api/%252E%252E/x", true},
		{"/api/%252e/x", true},
		{"/api/.%252e/x", true},
		{"/api/%25252e%25252e/x", true},
		{"/api/x/..%252f..%252fsecret", true},
		{"/api/a;b/x", false},
		{"/api/x;y=../z", false},
		{"/api/...", false},
		{"/api/..x/.y", false},
		{"/api/%25zz", false},
		{"/api/%2541", false},
		{"/api/%252F", true}, // a slash encoded twice, as the Callee refuses it
		{"/api/%252e%252e;%2525/admin", true},
		// Backslashes, which some upstreams split on as on "/".
		{`/api/..\admin`, true},
		{`/api/a\..\..\admin`, true},
		{"/api/..%5cadmin", true},
		{"/api/%5C..%5Cadmin", true},
		{"/api/%255c..%255cadmin", true},
		{`/api/a\b`, false},
	}
	for _, tt := range tests {
		resp, body := rawGet(t, addr, tt.target)
		refused := resp.StatusCode == http.StatusBadRequest && strings.Contains(string(body), "dot segment")
		if refused != tt.refused || !refused && resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d %q, want refused %v", tt.target, resp.StatusCode, body, tt.refused)
		}
	}
}

func TestReverseProxyMethodsAndBody(t *testing.T) { onEngines(t, testReverseProxyMethodsAndBody) }

func testReverseProxyMethodsAndBody(t *testing.T) {
	up := echoUpstream(t)
	o := upstreamOptions(t, up)
	o.Path = "/base"
	tree := NewTree()
	mustMount(t, tree, "api", mustProxy(t, o))
	addr := serveTree(t, tree)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, "PROPFIND"} {
		raw := m + " /api/sub HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello"
		got := doSeen(t, addr, raw)
		if got.Method != m || got.URI != "/base/sub" || got.BodyLen != 5 {
			t.Errorf("%s: upstream got %+v", m, got)
		}
	}
	raw := "POST /api/c HTTP/1.1\r\nHost: h\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n"
	got := doSeen(t, addr, raw)
	if got.BodyLen != 7 || got.Header.Get("Transfer-Encoding") != "" {
		t.Errorf("chunked upload: upstream got %+v", got)
	}
}

func TestReverseProxyHeaders(t *testing.T) { onEngines(t, testReverseProxyHeaders) }

func testReverseProxyHeaders(t *testing.T) {
	for _, method := range bodilessMethods {
		t.Run(method, func(t *testing.T) { testHeaders(t, method) })
	}
}

func testHeaders(t *testing.T, method string) {
	up := echoUpstream(t)
	tree := NewTree()
	mustMount(t, tree, "/", mustProxy(t, upstreamOptions(t, up)))
	addr := serveTree(t, tree)
	resp, body := rawRequest(t, addr, method, "/h",
		"X-Custom: a", "X-Multi: 1", "X-Multi: 2", "Connection: X-Foo", "X-Foo: bar",
		"Keep-Alive: timeout=5", "Accept-Encoding: gzip", "X-Forwarded-For: 203.0.113.7, 198.51.100.1",
		"X-Forwarded-Host: spoofed", "X-Forwarded-Proto: https", "X-Forwarded-Port: 1",
		"X-Real-IP: 192.0.2.1", "Forwarded: for=192.0.2.9", "TE: trailers", "Proxy-Authorization: Basic eA==")
	got := seen(t, resp, body)
	_, proxyPort, _ := net.SplitHostPort(addr)
	want := map[string]string{
		"X-Custom":            "a",
		"X-Multi":             "1,2",
		"X-Foo":               "",
		"Keep-Alive":          "",
		"Connection":          "",
		"Accept-Encoding":     "gzip",
		"X-Forwarded-For":     "203.0.113.7, 198.51.100.1, 127.0.0.1",
		"X-Forwarded-Host":    "front.test:8080",
		"X-Forwarded-Proto":   "http",
		"X-Forwarded-Port":    proxyPort,
		"X-Real-Ip":           "127.0.0.1",
		"Forwarded":           "",
		"Te":                  "trailers",
		"Proxy-Authorization": "",
	}
	for k, v := range want {
		if g := strings.Join(got.Header.Values(k), ","); g != v {
			t.Errorf("upstream header %s = %q, want %q", k, g, v)
		}
	}
	if got.Host != up.Listener.Addr().String() {
		t.Errorf("upstream Host %q, want %q", got.Host, up.Listener.Addr())
	}
	if resp.Header.Get("X-Up") != "kept" || resp.Header.Get("X-Up-Hop") != "" {
		t.Errorf("response headers %v: want X-Up and no X-Up-Hop", resp.Header)
	}
}

func TestReverseProxyForwardedOverrides(t *testing.T) {
	onEngines(t, testReverseProxyForwardedOverrides)
}

func testReverseProxyForwardedOverrides(t *testing.T) {
	up := echoUpstream(t)
	o := upstreamOptions(t, up)
	o.ForwardedPort, o.ForwardedProto = 8443, "https"
	tree := NewTree()
	mustMount(t, tree, "/", mustProxy(t, o))
	addr := serveTree(t, tree)
	for _, method := range bodilessMethods {
		resp, body := rawRequest(t, addr, method, "/", "X-Forwarded-Port: 1")
		got := seen(t, resp, body)
		if got.Header.Get("X-Forwarded-Port") != "8443" || got.Header.Get("X-Forwarded-Proto") != "https" {
			t.Errorf("%s: upstream headers %v", method, got.Header)
		}
		if got.Header.Get("X-Forwarded-For") != "127.0.0.1" {
			t.Errorf("%s: X-Forwarded-For %q, want the peer only", method, got.Header.Get("X-Forwarded-For"))
		}
	}
	// HTTP/1.0 without Host: no X-Forwarded-Host, and no 500 as in Crossbar.
	for _, method := range bodilessMethods {
		got := doSeen(t, addr, method+" /old HTTP/1.0\r\n\r\n")
		if _, ok := got.Header["X-Forwarded-Host"]; ok || got.URI != "/old" {
			t.Errorf("HTTP/1.0 request: %+v", got)
		}
	}
}

func TestReverseProxySiblingsWin(t *testing.T) { onEngines(t, testReverseProxySiblingsWin) }

func testReverseProxySiblingsWin(t *testing.T) {
	up := echoUpstream(t)
	info, err := JSON(map[string]string{"service": "info"}, JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tree := NewTree()
	mustMount(t, tree, "/", mustProxy(t, upstreamOptions(t, up)))
	mustMount(t, tree, "info", info)
	addr := serveTree(t, tree)
	for _, target := range []string{"/info", "/info/", "/info/x?y=1"} {
		resp, body := rawGet(t, addr, target)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"service":"info"`) {
			t.Errorf("%s: %d %q, want the json service", target, resp.StatusCode, body)
		}
	}
	for _, target := range []string{"/", "/infox", "/other/info"} {
		if got := getSeen(t, addr, target); got.URI != target {
			t.Errorf("%s: upstream got %q", target, got.URI)
		}
	}
}

func TestReverseProxyUpstreamDown(t *testing.T) { onEngines(t, testReverseProxyUpstreamDown) }

func testReverseProxyUpstreamDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().(*net.TCPAddr)
	l.Close() // nothing listens there now: connection refused
	var logs syncBuffer
	h := mustProxy(t, ReverseProxyOptions{
		Host: "127.0.0.1", Port: addr.Port,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	tree := NewTree()
	mustMount(t, tree, "/", h)
	resp, body := rawGet(t, serveTree(t, tree), "/x?secret=1")
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "upstream unreachable") {
		t.Errorf("got %d %q, want 502 upstream unreachable", resp.StatusCode, body)
	}
	if strings.Contains(string(body), "refused") || strings.Contains(string(body), "127.0.0.1") {
		t.Errorf("body leaks the error: %q", body)
	}
	if log := logs.String(); !strings.Contains(log, "level=WARN") || !strings.Contains(log, "refused") ||
		strings.Contains(log, "secret") {
		t.Errorf("log %q: want a warning with the cause and no query", log)
	}
}

func TestReverseProxyUpstreamBreaks(t *testing.T) { onEngines(t, testReverseProxyUpstreamBreaks) }

func testReverseProxyUpstreamBreaks(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			c.Close() // no response at all
		}
	}))
	t.Cleanup(up.Close)
	tree := NewTree()
	mustMount(t, tree, "/", mustProxy(t, upstreamOptions(t, up)))
	resp, body := rawGet(t, serveTree(t, tree), "/")
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), `"reason":"upstream failed"`) {
		t.Errorf("got %d %q, want 502 upstream failed", resp.StatusCode, body)
	}
}

func TestReverseProxyUpstreamTimeout(t *testing.T) { onEngines(t, testReverseProxyUpstreamTimeout) }

func testReverseProxyUpstreamTimeout(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // hang until the proxy gives up (closing the connection) or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(up.Close)
	t.Cleanup(func() { close(release) })
	o := upstreamOptions(t, up)
	o.Timeout = 50 * time.Millisecond
	tree := NewTree()
	mustMount(t, tree, "/", mustProxy(t, o))
	resp, body := rawGet(t, serveTree(t, tree), "/slow")
	if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(body), "gateway timeout") {
		t.Errorf("got %d %q, want 504", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
}

func TestClassifyUpstreamError(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	tests := []struct {
		err  error
		want int
	}{
		{&net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}, http.StatusBadGateway},
		{&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, http.StatusBadGateway},
		{&net.DNSError{Err: "timeout", IsTimeout: true}, http.StatusGatewayTimeout},
		{errors.New("unexpected EOF"), http.StatusBadGateway},
	}
	for _, tt := range tests {
		if _, status, _ := classifyUpstreamError(r.Context(), tt.err); status != tt.want {
			t.Errorf("%v: %d, want %d", tt.err, status, tt.want)
		}
	}
}

func TestReverseProxyOptionErrors(t *testing.T) {
	for _, o := range []ReverseProxyOptions{
		{},
		{Host: "h:80"},
		{Host: "h/x"},
		{Host: "user@h"},
		{Host: "h", Port: -1},
		{Host: "h", Port: 65536},
		{Host: "h", Path: "/a?b"},
		{Host: "h", Path: "/a#b"},
		{Host: "h", Path: "/a%zz"},
		{Host: "h", Path: "//other"},
		{Host: "h", ForwardedPort: -1},
		{Host: "h", ForwardedPort: 65536},
		{Host: "h", ForwardedProto: "ftp"},
		{Host: "h", Timeout: -time.Second},
	} {
		if _, err := NewReverseProxy(o); !errors.Is(err, ErrBadOption) {
			t.Errorf("NewReverseProxy(%+v) = %v, want ErrBadOption", o, err)
		}
	}
}

func TestUpstreamHost(t *testing.T) {
	tests := []struct {
		host string
		port int
		want string
	}{
		{"example.com", 80, "example.com"},
		{"example.com", 8080, "example.com:8080"},
		{"::1", 80, "[::1]"},
		{"[::1]", 8080, "[::1]:8080"},
		{"127.0.0.1", 1, "127.0.0.1:1"},
	}
	for _, tt := range tests {
		got, err := upstreamHost(tt.host, tt.port)
		if err != nil || got != tt.want {
			t.Errorf("upstreamHost(%q, %d) = %q, %v; want %q", tt.host, tt.port, got, err, tt.want)
		}
	}
}

func TestReverseProxyExpectContinue(t *testing.T) { onEngines(t, testReverseProxyExpectContinue) }

func testReverseProxyExpectContinue(t *testing.T) {
	up := echoUpstream(t)
	tree := NewTree()
	mustMount(t, tree, "/", mustProxy(t, upstreamOptions(t, up)))
	c, err := net.Dial("tcp", serveTree(t, tree))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	_, _ = io.WriteString(c, "PUT /e HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusContinue {
		t.Fatalf("before the body: %v %v, want 100 Continue", resp, err)
	}
	_, _ = io.WriteString(c, "hello")
	for resp.StatusCode == http.StatusContinue {
		if resp, err = http.ReadResponse(br, nil); err != nil {
			t.Fatal(err)
		}
	}
	body, _ := io.ReadAll(resp.Body)
	if got := seen(t, resp, body); got.BodyLen != 5 || got.Header.Get("Expect") != "100-continue" {
		t.Errorf("upstream got %+v", got)
	}
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzReverseProxyPath sends arbitrary request targets through a Tree to a
// proxy whose Transport records the upstream URL: no panic, and whatever is
// forwarded stays below Path, without dot segments.
func FuzzReverseProxyPath(f *testing.F) {
	for _, s := range []string{"/api/x", "/api", "/api/../x", "/api/%2e%2E/x", "/api/a%2Fb?c=%zz",
		"/api//x", "/x", "/api/\xff", "/api/%", "*", "/api/x%2F..%2F..%2Fy"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		var got *url.URL
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			got = r.URL
			return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Header: http.Header{}}, nil
		})
		h, err := NewReverseProxy(ReverseProxyOptions{Host: "up.test", Path: "/base", Transport: rt})
		if err != nil {
			t.Fatal(err)
		}
		tree := NewTree()
		mustMount(t, tree, "api", h)
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + target + " HTTP/1.1\r\nHost: h\r\n\r\n")))
		if err != nil {
			return // net/http would refuse it too
		}
		rec := httptest.NewRecorder()
		tree.ServeHTTP(rec, req)
		if got == nil {
			return
		}
		esc := got.EscapedPath()
		if got.Host != "up.test" || (esc != "/base" && !strings.HasPrefix(esc, "/base/")) || dotsegment.Check(got.Path) != nil {
			t.Errorf("%q forwarded as %q (path %q)", target, got.String(), got.Path)
		}
	})
}
