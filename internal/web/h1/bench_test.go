package h1

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// BenchmarkServeKeepAlive: one keep-alive connection, one request at a
// time, a 1 KiB answer, on the engine and on http.Server with the same
// handler (allocations are the whole process's: client and server).
func BenchmarkServeKeepAlive(b *testing.B) {
	body := make([]byte, 1024)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(body)
	})
	b.Run("engine", func(b *testing.B) {
		s := &Server{Handler: h}
		benchServe(b, s.Serve, func() { _ = s.Close(); waitConns(b, s) })
	})
	b.Run("stdlib", func(b *testing.B) {
		s := &http.Server{Handler: h}
		benchServe(b, s.Serve, func() { _ = s.Close() })
	})
}

func benchServe(b *testing.B, serve func(net.Listener) error, stop func()) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = serve(l); close(done) }()
	defer func() { stop(); <-done }()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	br := bufio.NewReader(c)
	req := []byte("GET /bench HTTP/1.1\r\nHost: bench\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		_ = resp.Body.Close()
	}
}
