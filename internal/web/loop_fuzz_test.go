package web

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/wsupgrade"
)

// FuzzLoopRequest holds the loop engine's request-head parser to
// http.ReadRequest: a head it serves is one http.ReadRequest reads as
// the same request (method, target, Host, fields, no body, the same
// length), and one the servers would not refuse.
func FuzzLoopRequest(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
		"HEAD /x/y?q=1 HTTP/1.1\r\nHost: a:80\r\nAccept: */*\r\n\r\nGET / HTTP/1.1\r\n",
		"GET /%41%2f HTTP/1.1\r\nhost: [::1]:8080\r\nx-a:  b \r\nX-A: c\r\nConnection: close, X-A\r\n\r\n",
		"GET /? HTTP/1.1\r\nHost: a\r\nTE: trailers\r\nX-Forwarded-For: 1.2.3.4\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
		"GET / HTTP/1.1\nHost: a\n\n",
		"GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nx",
		"GET / HTTP/1.0\r\n\r\n",
		"GET /a b HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nX: a\x00b\r\n\r\n",
		"GE",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var req loopRequest
		v := parseLoopRequest(b, &req)
		if v != headServe {
			return
		}
		br := bufio.NewReader(bytes.NewReader(b))
		r, err := http.ReadRequest(br)
		if err != nil {
			t.Fatalf("%q: served, but http.ReadRequest: %v", b, err)
		}
		if consumed := len(b) - br.Buffered(); consumed != req.n {
			t.Fatalf("%q: head of %d bytes, http.ReadRequest read %d", b, req.n, consumed)
		}
		target := req.path
		if req.query != "" || req.forceQuery {
			target += "?" + req.query
		}
		switch {
		case r.Method != req.method || r.RequestURI != target || r.Host != req.host:
			t.Fatalf("%q: %s %s host %q, http.ReadRequest %s %s %q", b, req.method, target, req.host, r.Method, r.RequestURI, r.Host)
		case r.URL.EscapedPath() != req.path || r.URL.RawQuery != req.query || r.URL.ForceQuery != req.forceQuery:
			t.Fatalf("%q: path %q query %q, http.ReadRequest %q %q", b, req.path, req.query, r.URL.EscapedPath(), r.URL.RawQuery)
		case r.ContentLength != 0 || r.TransferEncoding != nil || r.ProtoMinor != 1:
			t.Fatalf("%q: http.ReadRequest reads a body or another version", b)
		case r.Close != req.close:
			t.Fatalf("%q: close %v, http.ReadRequest %v", b, req.close, r.Close)
		}
		h := http.Header{}
		for _, f := range req.fields {
			h[f.name] = append(h[f.name], f.value)
		}
		if !reflect.DeepEqual(h, r.Header) && !(len(h) == 0 && len(r.Header) == 0) {
			t.Fatalf("%q: fields %v, http.ReadRequest %v", b, h, r.Header)
		}
		if !reflect.DeepEqual(req.connection, r.Header["Connection"]) || !reflect.DeepEqual(req.te, r.Header["Te"]) ||
			!reflect.DeepEqual(req.xff, r.Header["X-Forwarded-For"]) {
			t.Fatalf("%q: Connection, TE or X-Forwarded-For differ", b)
		}
		if wsupgrade.HasToken(r.Header["Connection"], "close") != req.close {
			t.Fatalf("%q: close differs", b)
		}
	})
}

// FuzzLoopChunks holds the loop engine's chunked decoder, fed in pieces,
// to net/http's reading of the same answer: the same body and trailer
// when net/http reads it whole, an error when net/http fails.
func FuzzLoopChunks(f *testing.F) {
	for _, s := range []string{
		"5\r\nhello\r\n0\r\n\r\n",
		"5;ext=1\r\nhello\r\n6  \r\n world\r\n0\r\nX-Sum: 1\r\nX-Other: 2\r\n\r\n",
		"0\r\n\r\n",
		"zz\r\n",
		"5\nhello\r\n0\r\n\r\n",
		"5\r\nhelloXX0\r\n\r\n",
		"00000000000000001\r\na\r\n0\r\n\r\n",
		"1\r\na\r\n0\r\nbad trailer\r\n\r\n",
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, body []byte, step uint8) {
		head := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(head+string(body))), nil)
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := io.ReadAll(resp.Body)
		var d chunkDecoder
		var got []byte
		var gotErr error
		in, fed := []byte(nil), 0
		for !d.done() && gotErr == nil {
			n, data, err := d.next(in)
			got = append(got, data...)
			in = in[n:]
			gotErr = err
			if n > 0 || err != nil {
				continue
			}
			if fed == len(body) {
				gotErr = io.ErrUnexpectedEOF
				break
			}
			k := min(len(body)-fed, int(step)+1)
			in = append(in, body[fed:fed+k]...)
			fed += k
		}
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, net/http %v", body, gotErr, wantErr)
		}
		if gotErr != nil {
			return
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%q: body %q, net/http %q", body, got, want)
		}
		if len(d.trailer) > 0 || len(resp.Trailer) > 0 {
			if !reflect.DeepEqual(d.trailer, resp.Trailer) {
				t.Fatalf("%q: trailer %v, net/http %v", body, d.trailer, resp.Trailer)
			}
		}
	})
}

// FuzzLoopAnswer holds the loop engine's reading of an answer head to
// http.ReadResponse's: the same status, fields and framing.
func FuzzLoopAnswer(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-A\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\n",
		"HTTP/1.1 103 Early Hints\r\nLink: <a>\r\n\r\n",
		"HTTP/1.1 304 Not Modified\r\nContent-Length: 3\r\n\r\n",
		"HTTP/1.1 101 Switching Protocols\r\n\r\n",
		"HTTP/1.1 200 OK\nContent-Length: 1\n\n",
		"HTTP/1.1 abc\r\n\r\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, b []byte, head bool) {
		method := http.MethodGet
		if head {
			method = http.MethodHead
		}
		n := headEnd(b)
		if n == 0 {
			return
		}
		var a upAnswer
		err := readAnswer(b[:n], method, &a)
		resp, rerr := http.ReadResponse(bufio.NewReader(bytes.NewReader(b[:n])), &http.Request{Method: method})
		if rerr == nil && (resp.StatusCode < 100 || resp.StatusCode == http.StatusSwitchingProtocols) {
			rerr = io.ErrUnexpectedEOF // refused after reading, as the direct path does
		}
		if (err != nil) != (rerr != nil) {
			t.Fatalf("%q: error %v, http.ReadResponse %v", b, err, rerr)
		}
		if err != nil {
			return
		}
		if a.code != resp.StatusCode {
			t.Fatalf("%q: status %d, http.ReadResponse %d", b, a.code, resp.StatusCode)
		}
		want := resp.Header.Clone()
		if !reflect.DeepEqual(map[string][]string(a.header), map[string][]string(want)) && !(len(a.header) == 0 && len(want) == 0) {
			t.Fatalf("%q: fields %v, http.ReadResponse %v", b, a.header, want)
		}
		switch a.framing {
		case bodyLength:
			if resp.ContentLength != a.length {
				t.Fatalf("%q: length %d, http.ReadResponse %d", b, a.length, resp.ContentLength)
			}
		case bodyChunked:
			if len(resp.TransferEncoding) == 0 {
				t.Fatalf("%q: chunked, http.ReadResponse not", b)
			}
		case bodyToClose:
			if resp.ContentLength != -1 || !resp.Close {
				t.Fatalf("%q: to the close, http.ReadResponse length %d close %v", b, resp.ContentLength, resp.Close)
			}
		}
	})
}
