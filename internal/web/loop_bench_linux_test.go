package web

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/web/h1"
)

// BenchmarkLoopEngine fetches a 1 KiB upstream answer through the proxy
// on h1 and on the loop engine (one loop, and one per CPU), from
// 32 keep-alive client connections at once (b.RunParallel), each
// request written and its answer read raw; it reports the rate. Client,
// proxy and upstream share the machine: scripts/bench-proxy.sh measures
// the engines beside nginx.
func BenchmarkLoopEngine(b *testing.B) {
	payload := bytes.Repeat([]byte("x"), 1<<10)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", strconv.Itoa(len(payload)))
		_, _ = w.Write(payload)
	}))
	b.Cleanup(up.Close)
	for _, e := range []struct {
		name  string
		loops int // 0: h1
	}{{"h1", 0}, {"loop-1", 1}, {"loop-GOMAXPROCS", runtime.GOMAXPROCS(0)}} {
		b.Run(e.name, func(b *testing.B) {
			tree := NewTree()
			mustMount(b, tree, "proxy", mustProxy(b, upstreamOptions(b, up)))
			var srv engine = &h1.Server{Handler: tree}
			if e.loops > 0 {
				srv = newLoopEngine(srv.(*h1.Server), tree, e.loops)
			}
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- srv.Serve(l) }()
			defer func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = srv.Shutdown(ctx)
				<-done
			}()
			req := []byte("GET /proxy/x HTTP/1.1\r\nHost: bench\r\n\r\n")
			b.SetParallelism(16) // 32 clients on 2 CPUs
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				c, err := net.Dial("tcp", l.Addr().String())
				if err != nil {
					b.Error(err)
					return
				}
				defer c.Close()
				br := bufio.NewReader(c)
				for pb.Next() {
					if _, err := c.Write(req); err != nil {
						b.Error(err)
						return
					}
					resp, err := http.ReadResponse(br, nil)
					if err != nil {
						b.Error(err)
						return
					}
					if n, err := io.Copy(io.Discard, resp.Body); err != nil || n != int64(len(payload)) {
						b.Errorf("%d bytes: %v", n, err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
		})
	}
}
