package e2e_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// upstream is the web application behind the node: the RESTCallee's API,
// the MessageForwarder's receiver and the reverse proxy's backend.
//
//   - /events: a forwarded event; its request goes on events, answer 204.
//   - any path ending in /ws: a WebSocket echo ("echo: " + each message).
//   - any path ending in /notfound: 404 with a text body.
//   - anything else: 200 with the request described as JSON (echoed) and
//     the header X-Upstream: e2e.
type upstream struct {
	srv    *httptest.Server
	events chan forwarded
}

// echoed is how the upstream describes a request it received.
type echoed struct {
	Method string              `json:"method"`
	Path   string              `json:"path"`
	Query  string              `json:"query"`
	Body   string              `json:"body"`
	Header map[string][]string `json:"header"`
	Host   string              `json:"host"`
}

// forwarded is a request to /events.
type forwarded struct {
	method string
	header http.Header
	body   string
}

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	u := &upstream{events: make(chan forwarded, 16)}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

// hostPort returns the upstream's host and port.
func (u *upstream) hostPort(t *testing.T) (string, int) {
	t.Helper()
	host, port, err := net.SplitHostPort(u.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	return host, p
}

func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch {
	case r.URL.Path == "/events":
		u.events <- forwarded{method: r.Method, header: r.Header.Clone(), body: string(body)}
		w.WriteHeader(http.StatusNoContent)
	case strings.HasSuffix(r.URL.Path, "/ws"):
		serveEcho(w, r)
	case strings.HasSuffix(r.URL.Path, "/notfound"):
		http.Error(w, "no such thing", http.StatusNotFound)
	default:
		e := echoed{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body),
			Header: r.Header, Host: r.Host}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Upstream", "e2e")
		_ = json.NewEncoder(w).Encode(e)
	}
}

// serveEcho upgrades to WebSocket and answers each text message with
// "echo: " and the message, until the client closes.
func serveEcho(w http.ResponseWriter, r *http.Request) {
	conn, _, _, err := ws.UpgradeHTTP(r, w)
	if err != nil {
		return
	}
	defer conn.Close()
	for {
		msg, op, err := wsutil.ReadClientData(conn)
		if err != nil {
			return
		}
		if err := wsutil.WriteServerMessage(conn, op, append([]byte("echo: "), msg...)); err != nil {
			return
		}
	}
}
