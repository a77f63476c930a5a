package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkReverseProxy fetches the same upstream response b.N times
// directly, then b.N times through the proxy (mounted at "/" in a Tree,
// the direct path), over keep-alive connections, one request at a time,
// and reports both rates and the proxied one as a percentage of the direct
// one. Client, proxy and upstream share the machine, so the proxy also
// pays for the CPU of its second hop. The load runs that compare it with
// nginx and Caddy are scripts/bench-proxy.sh.
//
// Each size runs twice: "direct", the proxy's own connections (the direct
// path), and "http.Transport", every request through httputil and a tuned
// http.Transport (newUpstreamTransport), what the proxy would be without
// its own connections.
func BenchmarkReverseProxy(b *testing.B) {
	for _, size := range []int{1 << 10, 64 << 10, 1 << 20} {
		for _, via := range []string{"direct", "http.Transport"} {
			b.Run("GET_"+strconv.Itoa(size>>10)+"KiB/"+via, func(b *testing.B) {
				var transport http.RoundTripper
				if via != "direct" {
					transport = newUpstreamTransport(newUpstreamDialer().DialContext, time.Minute)
				}
				benchProxy(b, size, transport)
			})
		}
	}
}

func benchProxy(b *testing.B, size int, transport http.RoundTripper) {
	payload := bytes.Repeat([]byte("x"), size)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(payload)))
		_, _ = w.Write(payload)
	}))
	b.Cleanup(up.Close)
	tree := NewTree()
	o := upstreamOptions(b, up)
	o.Transport = transport
	mustMount(b, tree, "/", mustProxy(b, o))
	front := httptest.NewServer(tree)
	b.Cleanup(front.Close)
	client := &http.Client{Transport: &http.Transport{}}
	b.Cleanup(client.CloseIdleConnections)

	get := func(url string) {
		resp, err := client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || n != int64(size) || resp.StatusCode != http.StatusOK {
			b.Fatal(fmt.Errorf("status %d, %d bytes: %v", resp.StatusCode, n, err))
		}
	}
	get(up.URL + "/warm")
	get(front.URL + "/warm")
	b.ReportAllocs()
	b.ResetTimer()
	direct := timeLoop(b.N, func() { get(up.URL + "/x") })
	proxied := timeLoop(b.N, func() { get(front.URL + "/x") })
	mb := float64(size) * float64(b.N) / (1 << 20)
	b.ReportMetric(float64(b.N)/direct.Seconds(), "direct-req/s")
	b.ReportMetric(float64(b.N)/proxied.Seconds(), "proxy-req/s")
	b.ReportMetric(mb/direct.Seconds(), "direct-MiB/s")
	b.ReportMetric(mb/proxied.Seconds(), "proxy-MiB/s")
	b.ReportMetric(100*direct.Seconds()/proxied.Seconds(), "proxy-%-of-direct")
}

func timeLoop(n int, f func()) time.Duration {
	start := time.Now()
	for range n {
		f()
	}
	return time.Since(start)
}

// BenchmarkReverseProxyHandler measures the direct path's own work per
// request: the proxy's ServeHTTP for a GET, with a ResponseWriter that
// keeps nothing, against a loopback upstream that answers every request
// at once with the same 1 KiB response (and allocates nothing). Its
// allocations per request are the proxy's.
func BenchmarkReverseProxyHandler(b *testing.B) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = l.Close() })
	answer := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1024\r\n" +
		"Date: Sun, 29 Nov 2026 12:00:00 GMT\r\n\r\n" + strings.Repeat("x", 1024))
	go cannedUpstream(l, answer)
	host, port, _ := net.SplitHostPort(l.Addr().String())
	p, _ := strconv.Atoi(port)
	proxy := mustProxy(b, ReverseProxyOptions{Host: host, Port: p})
	r := httptest.NewRequest("GET", "http://node.test/page?q=1", nil)
	r.Header.Set("User-Agent", "bench")
	r.Header.Set("Accept", "*/*")
	r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, l.Addr()))
	ctx, cancel := context.WithCancel(r.Context())
	b.Cleanup(cancel)
	r = r.WithContext(ctx)
	w := &discardWriter{header: make(http.Header)}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.header)
		w.code, w.n = 0, 0
		proxy.ServeHTTP(w, r)
		if w.code != http.StatusOK || w.n != 1024 {
			b.Fatalf("%d, %d bytes", w.code, w.n)
		}
	}
}

// cannedUpstream answers each request head on each connection of l with
// answer.
func cannedUpstream(l net.Listener, answer []byte) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			buf := make([]byte, 8<<10)
			have := 0
			for {
				n, err := c.Read(buf[have:])
				if err != nil {
					return
				}
				have += n
				for {
					i := bytes.Index(buf[:have], []byte("\r\n\r\n"))
					if i < 0 {
						break
					}
					have = copy(buf, buf[i+4:have])
					if _, err := c.Write(answer); err != nil {
						return
					}
				}
			}
		}()
	}
}

// discardWriter is a ResponseWriter that counts the body and keeps the
// status.
type discardWriter struct {
	header http.Header
	code   int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.header }

func (w *discardWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *discardWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}
