package h1

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// echo is the handler of the differential tests: it reads the body and
// answers with what it saw, so that two servers that parsed a request
// alike answer alike.
func echo(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if r.Method == http.MethodHead {
		w.Header().Set("Content-Length", "0")
		return
	}
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprintf(w, "%s %s %s host=%q cl=%d te=%q close=%v len=%d trailer=%v keys=%v\n",
		r.Method, r.RequestURI, r.Proto, r.Host, r.ContentLength, r.TransferEncoding, r.Close, len(b), r.Trailer, keys)
}

// servers are the two servers of a differential test, on loopback.
type servers struct{ std, eng string }

// startBoth serves h with an http.Server and with the engine.
func startBoth(t testing.TB, h http.Handler) servers {
	t.Helper()
	ls, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	le, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	std := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: quietLog()}
	eng := &Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{}, 2)
	go func() { _ = std.Serve(ls); done <- struct{}{} }()
	go func() { _ = eng.Serve(le); done <- struct{}{} }()
	t.Cleanup(func() {
		_ = std.Close()
		_ = eng.Close()
		<-done
		<-done
		waitConns(t, eng)
	})
	return servers{std: ls.Addr().String(), eng: le.Addr().String()}
}

// waitConns waits for the engine's connection goroutines to end after
// Close (goleak checks them).
func waitConns(t testing.TB, s *Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("connections left after Close: %v", err)
	}
}

// exchange sends raw on a new connection, closes its writing side, and
// returns every answer read back, normalized (status, header but Date,
// body), then how the connection ended.
func exchange(t testing.TB, addr string, raw []byte) []string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(raw); err != nil {
		return []string{"write: " + err.Error()}
	}
	_ = c.(*net.TCPConn).CloseWrite()
	return readAnswers(bufio.NewReader(c), requestMethods(raw))
}

// requestMethods returns the methods of the requests in raw, as far as
// they parse, so that answers to HEAD are read as such.
func requestMethods(raw []byte) []string {
	var methods []string
	br := bufio.NewReader(bytes.NewReader(raw))
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return methods
		}
		methods = append(methods, req.Method)
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return methods
		}
	}
}

// readAnswers reads answers until the connection ends.
func readAnswers(br *bufio.Reader, methods []string) []string {
	var out []string
	for {
		var req *http.Request
		if len(methods) > 0 {
			req = &http.Request{Method: methods[0]}
			methods = methods[1:]
		}
		resp, err := http.ReadResponse(br, req)
		if err == nil && resp.StatusCode < 200 && len(methods) >= 0 && req != nil {
			methods = append([]string{req.Method}, methods...) // an interim answer: the final one follows
		}
		if err != nil {
			return append(out, endOf(err))
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return append(out, describe(resp, b), "body: "+endOf(err))
		}
		out = append(out, describe(resp, b))
	}
}

// endOf names how the connection ended: a close (FIN, or a reset when
// the server closes with input unread, which races with the reading of
// its last answer) or another error.
func endOf(err error) string {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), strings.Contains(err.Error(), "reset by peer"):
		return "closed"
	}
	return err.Error()
}

func describe(resp *http.Response, body []byte) string {
	resp.Header.Del("Date")
	keys := make([]string, 0, len(resp.Header))
	for k, v := range resp.Header {
		keys = append(keys, k+"="+strings.Join(v, ","))
	}
	slices.Sort(keys)
	return fmt.Sprintf("%s %d te=%v cl=%d close=%v %v %q", resp.Proto, resp.StatusCode, resp.TransferEncoding, resp.ContentLength, resp.Close, keys, body)
}

func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }
