package h1

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// wrkHead is the request head wrk sends; browserHead one with the fields
// a browser sends.
const (
	wrkHead     = "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
	browserHead = "GET /app/index.html?lang=en HTTP/1.1\r\nHost: www.example.com\r\n" +
		"User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0\r\n" +
		"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n" +
		"Accept-Language: en-US,en;q=0.5\r\nAccept-Encoding: gzip, deflate, br, zstd\r\n" +
		"Connection: keep-alive\r\nCookie: session=abc123; theme=dark\r\nUpgrade-Insecure-Requests: 1\r\n" +
		"Sec-Fetch-Dest: document\r\nSec-Fetch-Mode: navigate\r\nPragma: no-cache\r\n\r\n"
)

// TestParseCommonHead: the heads of the common kind are parsed by the
// engine's parser, the others left to http.ReadRequest (what the two
// give is FuzzRequestHead's matter).
func TestParseCommonHead(t *testing.T) {
	tests := []struct {
		name, raw string
		fast      bool
	}{
		{"wrk", wrkHead, true},
		{"browser", browserHead, true},
		{"post", "POST /call HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", true},
		{"http/1.0 keep-alive", "GET / HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\n\r\n", true},
		{"lower-case names", "GET / HTTP/1.1\r\nhost: a\r\nuser-agent: x\r\nx-my_field: y\r\n\r\n", true},
		{"repeated field", "GET / HTTP/1.1\r\nHost: a\r\nAccept: a\r\nAccept: b\r\n\r\n", true},
		{"empty value", "GET / HTTP/1.1\r\nHost: a\r\nX:\r\n\r\n", true},
		{"head not whole", "GET / HTTP/1.1\r\nHost: a\r\n", false},
		{"no host", "GET / HTTP/1.0\r\n\r\n", false},
		{"two hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", false},
		{"bad host", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", false},
		{"absolute target", "GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n", false},
		{"options star", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", false},
		{"other method", "PROPFIND / HTTP/1.1\r\nHost: a\r\n\r\n", false},
		{"http/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", false},
		{"chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false},
		{"two lengths", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", false},
		{"signed length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +1\r\n\r\nx", false},
		{"trailer", "GET / HTTP/1.1\r\nHost: a\r\nTrailer: X\r\n\r\n", false},
		{"obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n", false},
		{"bare lf", "GET / HTTP/1.1\nHost: a\n\n", false},
		{"space before colon", "GET / HTTP/1.1\r\nHost: a\r\nX : b\r\n\r\n", false},
		{"control in value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\x7fb\r\n\r\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufferedReader([]byte(tt.raw))
			before := br.Buffered()
			got := parseCommonHead(br, new(http.Request))
			if got != tt.fast {
				t.Fatalf("parsed by the engine: %v, want %v", got, tt.fast)
			}
			if !got && br.Buffered() != before {
				t.Errorf("a head left to http.ReadRequest was consumed: %d bytes buffered, want %d", br.Buffered(), before)
			}
		})
	}
}

// bufferedReader returns a reader of raw with its first 4 KiB buffered,
// as the connection's is when a head arrived.
func bufferedReader(raw []byte) *bufio.Reader {
	br := bufio.NewReaderSize(bytes.NewReader(raw), 4096)
	_, _ = br.Peek(1)
	return br
}

// FuzzRequestHead holds the engine's parser to http.ReadRequest and
// checkRequest: a head it accepts must give the same request (every
// field, the body and the bytes after it), and a head they refuse it
// must leave to them, unconsumed.
func FuzzRequestHead(f *testing.F) {
	for _, tc := range diffCases {
		f.Add([]byte(tc.raw))
	}
	for _, s := range []string{
		wrkHead, browserHead,
		"POST /call?x=%41 HTTP/1.1\r\nhost: a:80\r\nContent-Length: 005\r\n\r\nhelloGET / HTTP/1.1\r\n",
		"PUT /a/../b;c HTTP/1.0\r\nHost: [::1]:8080\r\nConnection: Keep-Alive, x\r\n\r\n",
		"DELETE //x/y HTTP/1.1\r\nHost: a\r\nConnection:\tfoo ,CLOSE\r\nX-A_b: \xff v \r\n\r\n",
		"PATCH /%zz HTTP/1.1\r\nHost: a\r\nPragma: no-cache\r\nPragma: x\r\nCache-Control: max-age=0\r\n\r\n",
		"OPTIONS /#frag HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nab",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(sameRequest)
}

// FuzzRequestHeadParts is FuzzRequestHead on heads built of a method, a
// target and field lines between a Host field and the blank line, so
// that most inputs are heads of the common kind, or nearly.
func FuzzRequestHeadParts(f *testing.F) {
	f.Add("GET", "/", "User-Agent: x\r\n")
	f.Add("POST", "/a?b=c", "Content-Length: 3\r\nConnection: close\r\n\r\nabc")
	f.Add("HEAD", "/%41;x", "pragma: no-cache\r\nX:  y \r\nx: z\r\n")
	f.Add("PUT", "/a/./b?", "Content-Length: 0\r\nTransfer-Encoding: chunked\r\n")
	f.Add("DELETE", "/x#y", "Host: b\r\n")
	f.Add("OPTIONS", "//a:b@c/d", "Expect: 100-continue\r\nContent-Length: 1\r\n\r\nx")
	f.Fuzz(func(t *testing.T, method, target, fields string) {
		sameRequest(t, []byte(method+" "+target+" HTTP/1.1\r\nHost: a\r\n"+fields+"\r\n"))
	})
}

// sameRequest parses raw with the engine's parser and, when it accepts
// it, with http.ReadRequest and checkRequest, and fails unless the two
// give the same request.
func sameRequest(t *testing.T, raw []byte) {
	br := bufferedReader(raw)
	before := br.Buffered()
	fast := new(http.Request)
	if !parseCommonHead(br, fast) {
		if br.Buffered() != before {
			t.Fatalf("input %q: refused but consumed", raw)
		}
		return
	}
	std, err := stdRequest(raw)
	if err != nil {
		t.Fatalf("input %q: net/http refuses it (%v), the engine's parser accepts it", raw, err)
	}
	if diff := requestDiff(fast, std.req); diff != "" {
		t.Fatalf("input %q: %s", raw, diff)
	}
	fastBody, fastErr := io.ReadAll(fast.Body)
	if !bytes.Equal(fastBody, std.body) || fmt.Sprint(fastErr) != fmt.Sprint(std.bodyErr) {
		t.Fatalf("input %q: body %q (%v), net/http's %q (%v)", raw, fastBody, fastErr, std.body, std.bodyErr)
	}
	if rest, _ := io.ReadAll(br); !bytes.Equal(rest, std.rest) {
		t.Fatalf("input %q: left %q, net/http left %q", raw, rest, std.rest)
	}
}

// stdParse is what net/http made of a request: the request, its body
// read to the end, and the bytes after it.
type stdParse struct {
	req     *http.Request
	body    []byte
	bodyErr error
	rest    []byte
}

// stdRequest reads raw as the engine's fallback does: http.ReadRequest,
// then checkRequest.
func stdRequest(raw []byte) (stdParse, error) {
	br := bufferedReader(raw)
	req, err := http.ReadRequest(br)
	if err != nil {
		return stdParse{}, err
	}
	if err := checkRequest(req, raw); err != nil {
		return stdParse{}, err
	}
	p := stdParse{req: req}
	p.body, p.bodyErr = io.ReadAll(req.Body)
	p.rest, _ = io.ReadAll(br)
	return p, nil
}

// requestDiff names the first field in which a and b differ; "" when
// none does. Body is compared as NoBody or not; its bytes elsewhere.
func requestDiff(a, b *http.Request) string {
	fields := []struct {
		name string
		a, b any
	}{
		{"Method", a.Method, b.Method},
		{"URL", *a.URL, *b.URL},
		{"RequestURI", a.RequestURI, b.RequestURI},
		{"Proto", a.Proto, b.Proto},
		{"ProtoMajor", a.ProtoMajor, b.ProtoMajor},
		{"ProtoMinor", a.ProtoMinor, b.ProtoMinor},
		{"Header", a.Header, b.Header},
		{"Host", a.Host, b.Host},
		{"ContentLength", a.ContentLength, b.ContentLength},
		{"TransferEncoding", a.TransferEncoding, b.TransferEncoding},
		{"Close", a.Close, b.Close},
		{"Trailer", a.Trailer, b.Trailer},
		{"NoBody", a.Body == http.NoBody, b.Body == http.NoBody},
		{"Form", a.Form, b.Form},
		{"RemoteAddr", a.RemoteAddr, b.RemoteAddr},
	}
	for _, f := range fields {
		if !reflect.DeepEqual(f.a, f.b) {
			return fmt.Sprintf("%s: %#v, net/http's %#v", f.name, f.a, f.b)
		}
	}
	return ""
}

// BenchmarkRequestHead: a request head read from the connection's buffer
// and given its context, as serveRequest does, by the engine's parser and
// by http.ReadRequest with the engine's checks (its path for the heads
// the parser leaves), for wrk's head and a browser's.
func BenchmarkRequestHead(b *testing.B) {
	for _, head := range []struct{ name, raw string }{{"wrk", wrkHead}, {"browser", browserHead}} {
		for _, path := range []struct {
			name string
			read func(*conn) (*http.Request, error)
		}{{"engine", (*conn).readRequest}, {"readrequest", (*conn).readAnyRequest}} {
			b.Run(head.name+"/"+path.name, func(b *testing.B) {
				benchRequestHead(b, head.raw, path.read)
			})
		}
	}
}

func benchRequestHead(b *testing.B, head string, read func(*conn) (*http.Request, error)) {
	c := &conn{srv: &Server{}}
	c.r = &connReader{c: c, remain: math.MaxInt64}
	src := strings.NewReader(head)
	c.br = bufio.NewReaderSize(src, 4096)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		src.Reset(head)
		c.br.Reset(src)
		_, _ = c.br.Peek(1)
		req, err := read(c)
		if err != nil {
			b.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		req = req.WithContext(cctx)
		c.head = http.Request{}
		cancel()
		if req.Host == "" {
			b.Fatal("no host")
		}
	}
}
