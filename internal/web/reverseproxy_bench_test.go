package web

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
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
					transport = newUpstreamTransport(time.Minute)
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
