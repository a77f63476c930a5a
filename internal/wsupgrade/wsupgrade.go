// Package wsupgrade reads the opening handshake of a WebSocket as a server
// sees it, so that the WAMP WebSocket endpoint (transport/websocket) and the
// proxies (web) agree on it: whether a request asks for a WebSocket, the
// tokens of its header lists (subprotocols, upgrade protocols), whether its
// Origin is allowed, and the bytes net/http read past it. It uses only the
// standard library.
package wsupgrade

import (
	"bufio"
	"iter"
	"net/http"
	"strings"
)

// Requested reports whether h asks for a WebSocket upgrade: its Connection
// lists "upgrade" and its Upgrade lists "websocket" (in any case).
func Requested(h http.Header) bool {
	return HasToken(h.Values("Connection"), "upgrade") && HasToken(h.Values("Upgrade"), "websocket")
}

// HasToken reports whether a header's lines list token, in any case.
func HasToken(lines []string, token string) bool {
	for t := range Tokens(lines) {
		if strings.EqualFold(t, token) {
			return true
		}
	}
	return false
}

// Tokens yields the comma-separated tokens of a header's lines, in order,
// trimmed; empty ones are skipped.
func Tokens(lines []string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, line := range lines {
			for t := range strings.SplitSeq(line, ",") {
				if t = strings.TrimSpace(t); t != "" && !yield(t) {
					return
				}
			}
		}
	}
}

// Pending returns the bytes net/http read past the upgrade request, from
// the reader a Hijack returned: the frames a client sent right after its
// handshake. They stay in br's buffer: copy them before br is reused.
func Pending(br *bufio.Reader) []byte {
	b, _ := br.Peek(br.Buffered())
	return b
}
