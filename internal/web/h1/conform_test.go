package h1

import (
	"net/http"
	"slices"
	"testing"
)

// The raw requests both servers must treat alike: keep-alive,
// pipelining, chunked bodies, 100-continue, HTTP/1.0, HEAD, an oversized
// head, bad requests and request smuggling attempts.
var diffCases = []struct{ name, raw string }{
	{"get", "GET / HTTP/1.1\r\nHost: a\r\n\r\n"},
	{"keep-alive pipelined", "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\nHEAD /3 HTTP/1.1\r\nHost: a\r\n\r\n"},
	{"connection close", "GET /1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n"},
	{"http/1.0", "GET / HTTP/1.0\r\n\r\nGET /2 HTTP/1.0\r\n\r\n"},
	{"http/1.0 keep-alive", "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.0\r\n\r\n"},
	{"http/1.0 head keep-alive", "HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.0\r\n\r\n"},
	{"post content-length", "POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\nHost: a\r\n\r\n"},
	{"post crlf after body", "POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"},
	{"chunked", "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"},
	{"chunked trailer", "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n"},
	{"chunked bad size", "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"},
	{"expect 100-continue", "POST /e HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc"},
	{"expect other", "POST /e HTTP/1.1\r\nHost: a\r\nExpect: something\r\nContent-Length: 3\r\n\r\nabc"},
	{"expect 100-continue no body", "GET /e HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n"},
	{"missing host", "GET / HTTP/1.1\r\n\r\n"},
	{"empty host", "GET / HTTP/1.1\r\nHost:\r\n\r\n"},
	{"absolute uri no host", "GET http://a/x HTTP/1.1\r\n\r\n"},
	{"absolute uri bad host", "GET http://a/x HTTP/1.1\r\nHost: a b\r\n\r\n"},
	{"two hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"},
	{"bad host", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n"},
	{"bad header name", "GET / HTTP/1.1\r\nHost: a\r\nX Y: z\r\n\r\n"},
	{"bad header value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\x01b\r\n\r\n"},
	{"no colon", "GET / HTTP/1.1\r\nHost: a\r\nbogus\r\n\r\n"},
	{"bad request line", "GET /\r\nHost: a\r\n\r\n"},
	{"bad method", "G(T / HTTP/1.1\r\nHost: a\r\n\r\n"},
	{"http/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n"},
	{"http/0.9", "GET / HTTP/0.9\r\nHost: a\r\n\r\n"},
	{"bad version", "GET / HTTP/1.x\r\nHost: a\r\n\r\n"},
	{"cl and te", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n"},
	{"two different cls", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nhello"},
	{"two equal cls", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello"},
	{"cl list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhello"},
	{"negative cl", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n"},
	{"plus cl", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhello"},
	{"te chunked identity", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n"},
	{"te identity", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n"},
	{"te gzip", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n"},
	{"te twice", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"},
	{"te in http/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"},
	{"obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n"},
	{"obs-fold te", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n"},
	{"space before colon", "GET / HTTP/1.1\r\nHost: a\r\nX : b\r\n\r\n"},
	{"leading space header", "GET / HTTP/1.1\r\n Host: a\r\n\r\n"},
	{"bare lf", "GET / HTTP/1.1\nHost: a\n\n"},
	{"bare cr", "GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n"},
	{"nul in uri", "GET /\x00 HTTP/1.1\r\nHost: a\r\n\r\n"},
	{"options star", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n"},
	{"connect", "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n"},
	{"head", "HEAD / HTTP/1.1\r\nHost: a\r\n\r\n"},
	{"truncated head", "GET / HTTP/1.1\r\nHost: a\r\n"},
	{"truncated body", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc"},
	{"empty", ""},
	{"crlf only", "\r\n\r\n"},
}

func TestDifferential(t *testing.T) {
	s := startBoth(t, http.HandlerFunc(echo))
	for _, tc := range diffCases {
		t.Run(tc.name, func(t *testing.T) {
			std := exchange(t, s.std, []byte(tc.raw))
			eng := exchange(t, s.eng, []byte(tc.raw))
			if !slices.Equal(std, eng) {
				t.Errorf("net/http:\n\t%s\nengine:\n\t%s", joinLines(std), joinLines(eng))
			}
		})
	}
}

func joinLines(s []string) string {
	out := ""
	for i, l := range s {
		if i > 0 {
			out += "\n\t"
		}
		out += l
	}
	return out
}
