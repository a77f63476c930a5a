package h1

import (
	"bytes"
	"net/http"
	"slices"
	"testing"
)

// FuzzEngineVsStdlib sends the same bytes to an http.Server and to the
// engine, both serving echo, and wants the same answers and the same end.
// An HTTP/2 preface is the one deliberate difference (see the package
// doc), so inputs holding "PRI" are left out.
func FuzzEngineVsStdlib(f *testing.F) {
	for _, tc := range diffCases {
		f.Add([]byte(tc.raw))
	}
	f.Add([]byte("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"))
	f.Add([]byte("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, close\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"))
	s := startBoth(f, http.HandlerFunc(behave))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if bytes.Contains(raw, []byte("PRI")) || len(raw) > 64<<10 {
			return
		}
		std := exchange(t, s.std, raw)
		eng := exchange(t, s.eng, raw)
		if !slices.Equal(std, eng) {
			t.Errorf("input %q\nnet/http:\n\t%s\nengine:\n\t%s", raw, joinLines(std), joinLines(eng))
		}
	})
}
