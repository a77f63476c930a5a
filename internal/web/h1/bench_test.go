package h1

import (
	"bufio"
	"fmt"
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

// BenchmarkServeParallel: 32 keep-alive connections at once, each
// posting a small JSON body that the handler reads (the Caller's shape),
// on the engine and on http.Server; ns/op is the whole process's time
// per request on the machine's cores, client included.
func BenchmarkServeParallel(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"args":[42]}`)
	})
	b.Run("engine", func(b *testing.B) {
		s := &Server{Handler: h}
		benchParallel(b, s.Serve, func() { _ = s.Close(); waitConns(b, s) })
	})
	b.Run("stdlib", func(b *testing.B) {
		s := &http.Server{Handler: h}
		benchParallel(b, s.Serve, func() { _ = s.Close() })
	})
}

func benchParallel(b *testing.B, serve func(net.Listener) error, stop func()) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = serve(l); close(done) }()
	defer func() { stop(); <-done }()
	body := `{"procedure":"com.bench.echo","args":[42]}`
	req := []byte(fmt.Sprintf("POST /call HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	b.ReportAllocs()
	b.SetParallelism(16) // 32 connections on 2 cores
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
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
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
