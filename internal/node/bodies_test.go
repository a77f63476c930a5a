package node

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/web"
)

// bodiesDoc is a node whose web transport has the options, with a caller
// at /call and a webhook at /hook.
func bodiesDoc(options string) string {
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "options": {` + options + `},
			"endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"call": {"type": "caller", "realm": "realm1", "role": "anonymous"},
			"hook": {"type": "webhook", "realm": "realm1", "role": "anonymous", "options": {"topic": "com.example.hook"}}}}]}]}`
}

// dialWeb connects to the node's web transport, with testTimeout to fail
// the test rather than hang it.
func dialWeb(t *testing.T, n *Node) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", address(t, n, web0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.SetDeadline(time.Now().Add(testTimeout)); err != nil {
		t.Fatal(err)
	}
	return c, bufio.NewReader(c)
}

// TestBodyTimeoutCaller is F4 (docs/SECURITY.md) on a node: a POST to /call whose
// body stops arriving is answered 408 in the Caller's format once
// "body_timeout" passes, and its connection is closed.
func TestBodyTimeoutCaller(t *testing.T) {
	n := start(t, parse(t, bodiesDoc(`"body_timeout": 1`), nil), t.TempDir())
	c, br := dialWeb(t, n)
	fmt.Fprint(c, "POST /call HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	want := `{"error":"Request body timed out, nothing received for too long.","args":[],"kwargs":{}}`
	if resp.StatusCode != http.StatusRequestTimeout || string(body) != want || !resp.Close {
		t.Errorf("answer %d %s, Connection: close %v; want 408 %s, close", resp.StatusCode, body, resp.Close, want)
	}
}

// TestBodyBufferShared is F6 (docs/SECURITY.md) on a node: the bridge services of
// a web transport share "body_buffer_limit"; a body that does not fit
// beside one in flight on another service is answered 503 with
// Retry-After, and fits once that one is answered.
func TestBodyBufferShared(t *testing.T) {
	n := start(t, parse(t, bodiesDoc(`"body_buffer_limit": 3000`), nil), t.TempDir())
	c, br := dialWeb(t, n)
	// net/http sends 100 Continue at the first read of the body, which
	// comes after the Caller reserved its 2000 bytes.
	fmt.Fprint(c, "POST /call HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000\r\nExpect: 100-continue\r\n\r\n")
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
		t.Fatalf("waiting for 100 Continue: %q, %v", line, err)
	}
	if _, err := br.ReadString('\n'); err != nil { // the blank line ending the 100 response
		t.Fatal(err)
	}
	hook := "http://" + address(t, n, web0) + "/hook"
	req, _ := http.NewRequestWithContext(testCtx(t), http.MethodPost, hook, strings.NewReader(strings.Repeat("h", 2000)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("webhook beside the call: %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	call := `{"procedure":"wamp.session.count","args":[]}`
	fmt.Fprint(c, call+strings.Repeat(" ", 2000-len(call)))
	callResp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	callResp.Body.Close()
	if callResp.StatusCode != http.StatusOK {
		t.Errorf("call: %d", callResp.StatusCode)
	}
	if code, _ := post(t, hook, strings.Repeat("h", 2000), http.Header{}); code != http.StatusAccepted {
		t.Errorf("webhook alone: %d, want 202", code)
	}
}

// TestBodyDefaultsAgree: package config documents the body timeout and
// the body buffer's defaults; they must be those of web and bridge.
func TestBodyDefaultsAgree(t *testing.T) {
	if config.DefaultBodyTimeout != web.DefaultBodyTimeout || config.DefaultBodyBufferLimit != bridge.DefaultBodyBufferLimit {
		t.Error("config's body defaults differ from web's and bridge's")
	}
}
