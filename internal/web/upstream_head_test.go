package web

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/httpsyntax"
)

func TestParseSimpleHead(t *testing.T) {
	const body = "\r\n\r\nhello"
	tests := []struct {
		name   string
		head   string
		simple bool // readSimple reads it; else http.ReadResponse does
	}{
		{"common", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5" + body, true},
		{"bare newlines", "HTTP/1.1 200 OK\nContent-Length: 5\n\nhello", true},
		{"no reason", "HTTP/1.1 404\r\nContent-Length: 5" + body, true},
		{"names to canonicalize", "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nx-ONE: a\r\nX-One: b" + body, true},
		{"blanks around values", "HTTP/1.1 200 OK\r\nContent-Length:5 \t\r\nX-A: \t a b \t" + body, true},
		{"empty value and obs-text", "HTTP/1.1 500 Oops\r\nX-E:\r\nX-O: \xe9t\xe9\r\nContent-Length: 5" + body, true},
		{"zero length", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true},
		{"HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 5" + body, false},
		{"informational", "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", false},
		{"no content", "HTTP/1.1 204 No Content\r\nContent-Length: 5" + body, false},
		{"not modified", "HTTP/1.1 304 Not Modified\r\nContent-Length: 5" + body, false},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", false},
		{"no length", "HTTP/1.1 200 OK\r\nX-A: 1\r\n\r\nhello", false},
		{"two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5" + body, false},
		{"signed length", "HTTP/1.1 200 OK\r\nContent-Length: +5" + body, false},
		{"huge length", "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807" + body, false},
		{"connection", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5" + body, false},
		{"trailer", "HTTP/1.1 200 OK\r\nTrailer: X-T\r\nContent-Length: 5" + body, false},
		{"pragma", "HTTP/1.1 200 OK\r\nPragma: no-cache\r\nContent-Length: 5" + body, false},
		{"keep-alive", "HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5\r\nContent-Length: 5" + body, false},
		{"upgrade", "HTTP/1.1 200 OK\r\nupgrade: h2c\r\nContent-Length: 5" + body, false},
		{"proxy-authenticate", "HTTP/1.1 200 OK\r\nProxy-Authenticate: Basic\r\nContent-Length: 5" + body, false},
		{"proxy-connection", "HTTP/1.1 200 OK\r\nProxy-Connection: close\r\nContent-Length: 5" + body, false},
		{"te", "HTTP/1.1 200 OK\r\nTE: trailers\r\nContent-Length: 5" + body, false},
		{"folded line", "HTTP/1.1 200 OK\r\nX-A: 1\r\n 2\r\nContent-Length: 5" + body, false},
		{"space before colon", "HTTP/1.1 200 OK\r\nX-A : 1\r\nContent-Length: 5" + body, false},
		{"control in value", "HTTP/1.1 200 OK\r\nX-A: 1\x002\r\nContent-Length: 5" + body, false},
		{"bad status", "HTTP/1.1 2x0 OK\r\nContent-Length: 5" + body, false},
		{"long status", "HTTP/1.1 2000 OK\r\nContent-Length: 5" + body, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkSimpleHead(t, []byte(tt.head)); got != tt.simple {
				t.Errorf("read by readSimple: %v, want %v", got, tt.simple)
			}
		})
	}
}

// FuzzUpstreamHead: whatever readSimple reads (see parseSimpleHead), it
// reads as http.ReadResponse does: status, header, length, body and its
// end.
func FuzzUpstreamHead(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\nContent-Length: 5\n\nhel",
		"HTTP/1.1 404\r\ncontent-length: 0\r\nx-a: 1\r\nX-A:  2 \r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-B: \xff\r\n\r\nhelloextra",
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nX-A: 1\r\n 2\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5\r\nContent-Length: 0\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkSimpleHead(t, raw)
	})
}

// checkSimpleHead reads raw with readSimple's parser and, when it takes
// it, with http.ReadResponse too, and fails t unless they agree; it
// reports whether readSimple took it.
func checkSimpleHead(t *testing.T, raw []byte) bool {
	t.Helper()
	n := finalHeadLen(raw)
	if n == 0 {
		return false
	}
	h := make(http.Header)
	status, code, length, ok := parseSimpleHead(raw[:n], h)
	if !ok {
		return false
	}
	req, _ := http.NewRequest("GET", "http://up.test/", nil)
	want, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), req)
	if err != nil {
		t.Fatalf("readSimple takes %q, http.ReadResponse fails: %v", raw, err)
	}
	if want.Status != status || want.StatusCode != code || want.ContentLength != length || !reflect.DeepEqual(want.Header, h) {
		t.Fatalf("%q: readSimple %q %d %d %v, http.ReadResponse %q %d %d %v",
			raw, status, code, length, h, want.Status, want.StatusCode, want.ContentLength, want.Header)
	}
	for k := range h {
		if hopByHop(k, nil) {
			t.Fatalf("%q: readSimple takes the hop-by-hop field %s", raw, k)
		}
	}
	if want.Close || want.TransferEncoding != nil || want.Trailer != nil {
		t.Fatalf("%q: http.ReadResponse reads close %v, transfer encoding %v, trailer %v", raw, want.Close, want.TransferEncoding, want.Trailer)
	}
	wantBody, wantErr := io.ReadAll(want.Body)
	gotBody, gotErr := io.ReadAll(&httpsyntax.LengthBody{R: bufio.NewReader(bytes.NewReader(raw[n:])), N: length})
	if !bytes.Equal(gotBody, wantBody) || !errors.Is(gotErr, wantErr) && (gotErr == nil || wantErr == nil || gotErr.Error() != wantErr.Error()) {
		t.Fatalf("%q: body %q (%v), http.ReadResponse's %q (%v)", raw, gotBody, gotErr, wantBody, wantErr)
	}
	if strings.Contains(status, "\n") {
		t.Fatalf("status %q", status)
	}
	return true
}
