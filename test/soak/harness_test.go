//go:build soak

package soak

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/test/internal/nodeproc"
	"github.com/junction-wamp/junction/wamp"
)

// stepTimeout bounds each network step of a scenario (a dial, a join, a
// request): long, as the node may be under load.
const stepTimeout = 30 * time.Second

// requireSoak skips a scenario under -short, and fails it when the binary
// could not be built.
func requireSoak(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("soak test: skipped under -short; make soak runs it")
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// obj is a JSON object of a config.
type obj = map[string]any

// nodeSpec is what a scenario runs.
type nodeSpec struct {
	Config obj // the whole config; see routerConfig
	// NoFile, when set, is the node's file descriptor limit (RLIMIT_NOFILE,
	// soft and hard), set by the shell's ulimit before the binary runs.
	NoFile int
	// AllowedWarnings are the messages of the WARN lines the node may log.
	AllowedWarnings []string
}

// startNode writes the config into a temporary directory and starts the
// binary on it; the node is stopped, and its log checked, when the test
// ends (see nodeproc.Node.Stop).
func startNode(t *testing.T, spec nodeSpec) *nodeproc.Node {
	t.Helper()
	cfg := nodeproc.WriteConfig(t, spec.Config)
	bin := binary
	if spec.NoFile > 0 {
		bin = limited(t, spec.NoFile)
	}
	return nodeproc.Start(t, bin, cfg, nodeproc.Options{AllowedWarnings: spec.AllowedWarnings})
}

// limited writes a script that sets the descriptor limit to nofile and
// execs the binary in the same process (so that signals by PID reach the
// node), and returns its path.
func limited(t *testing.T, nofile int) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "junction-nofile-"+strconv.Itoa(nofile))
	text := fmt.Sprintf("#!/bin/sh\nulimit -n %d || exit 1\nexec '%s' \"$@\"\n", nofile, binary)
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

// routerConfig is a config with one router worker: realm1, where the
// roles anonymous and user may do everything, and the transports given.
func routerConfig(transports ...obj) obj {
	return obj{"version": 2, "workers": []obj{{
		"type": "router",
		"realms": []obj{{"name": "realm1", "roles": []obj{
			{"name": "anonymous", "allow-by-default": true},
			{"name": "user", "allow-by-default": true},
		}}},
		"transports": transports,
	}}}
}

// The tickets of the principals of the scenarios that log in (see
// ticketAuth and withTicket).
const (
	aliceTicket = "alice-secret-ticket"
	bobTicket   = "bob-secret-ticket"
)

// ticketAuth is an auth object that offers only ticket, for the
// principals given by authid with their tickets, each of role user.
func ticketAuth(tickets map[string]string) obj {
	principals := obj{}
	for authid, ticket := range tickets {
		principals[authid] = obj{"ticket": ticket, "role": "user"}
	}
	return obj{"ticket": obj{"type": "static", "principals": principals}}
}

// tcpEndpoint is a listening endpoint on 127.0.0.1, any port, with the
// extra members of more (such as max_connections).
func tcpEndpoint(more obj) obj {
	e := obj{"type": "tcp", "interface": "127.0.0.1", "port": 0}
	for k, v := range more {
		e[k] = v
	}
	return e
}

// rawSocketTransport is a rawsocket transport at endpoint.
func rawSocketTransport(endpoint obj) obj {
	return obj{"type": "rawsocket", "endpoint": endpoint}
}

// webTransport is a web transport at endpoint with WAMP over WebSocket at
// /ws and a JSON value at /json (200 for a GET), and the paths of more.
func webTransport(endpoint obj, more obj) obj {
	paths := obj{"ws": obj{"type": "websocket"}, "json": obj{"type": "json", "value": obj{"ok": true}}}
	for k, v := range more {
		paths[k] = v
	}
	return obj{"type": "web", "endpoint": endpoint, "paths": paths}
}

// stepCtx is a context for one step of the scenario.
func stepCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
	t.Cleanup(cancel)
	return ctx
}

// anonymous is the client config of an anonymous session of realm1.
var anonymous = client.Config{Realm: "realm1"}

// withTicket is the client config of principal authid of realm1, logging
// in with ticket.
func withTicket(authid, ticket string) client.Config {
	return client.Config{Realm: "realm1", AuthID: authid, Auth: []client.Authenticator{client.Ticket(ticket)}}
}

// joinRaw joins realm1 anonymously over RawSocket at addr; the session
// closes at the end of the test.
func joinRaw(t *testing.T, addr string) (*client.Session, error) {
	t.Helper()
	return joinRawAs(t, addr, anonymous)
}

// joinRawAs joins over RawSocket at addr as cfg says; the session closes
// at the end of the test.
func joinRawAs(t *testing.T, addr string, cfg client.Config) (*client.Session, error) {
	t.Helper()
	p, err := rawsocket.Dial(stepCtx(t), "tcp", addr, rawsocket.DialOptions{})
	if err != nil {
		return nil, err
	}
	return join(t, p, cfg)
}

// joinWS joins realm1 anonymously over WebSocket at url; the session
// closes at the end of the test.
func joinWS(t *testing.T, url string) (*client.Session, error) {
	t.Helper()
	return joinWSAs(t, url, anonymous)
}

// joinWSAs joins over WebSocket at url as cfg says; the session closes at
// the end of the test.
func joinWSAs(t *testing.T, url string, cfg client.Config) (*client.Session, error) {
	t.Helper()
	p, err := websocket.Dial(stepCtx(t), url, websocket.DialOptions{})
	if err != nil {
		return nil, err
	}
	return join(t, p, cfg)
}

// join joins on p as cfg says; the session closes at the end of the test.
func join(t *testing.T, p wamp.Peer, cfg client.Config) (*client.Session, error) {
	s, err := client.Join(stepCtx(t), p, cfg)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { s.Close() })
	return s, nil
}

// httpGet GETs url on a connection of its own and returns the status.
func httpGet(t *testing.T, url string) (int, error) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: stepTimeout}
	resp, err := c.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// connSet is a set of open TCP connections that send nothing.
type connSet []net.Conn

// openConns opens n TCP connections to addr (the kernel completes them
// whether or not the node accepts) and keeps them until Close or the end
// of the test.
func openConns(t *testing.T, addr string, n int) connSet {
	t.Helper()
	var d net.Dialer
	cs := make(connSet, 0, n)
	t.Cleanup(func() { cs.Close() })
	for range n {
		c, err := d.DialContext(stepCtx(t), "tcp", addr)
		if err != nil {
			t.Fatalf("connection %d of %d to %s: %v", len(cs)+1, n, addr, err)
		}
		cs = append(cs, c)
	}
	return cs
}

// Close closes every connection.
func (cs connSet) Close() {
	for _, c := range cs {
		c.Close()
	}
}

// inParallel runs do for each index of 0..n-1, workers calls at a time,
// and returns once every call has returned. The first error stops handing
// out indexes and is returned.
func inParallel(n, workers int, do func(i int) error) error {
	var next atomic.Int64
	var first atomic.Pointer[error]
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n && first.Load() == nil; i = int(next.Add(1) - 1) {
				if err := do(i); err != nil {
					first.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := first.Load(); err != nil {
		return *err
	}
	return nil
}

// Recovery: after a burst, the node frees what the burst held as it reads
// each connection's end, so serving again takes it a moment. recovered
// checks every recoveryPause until recoveryBound.
const (
	recoveryBound = 30 * time.Second
	recoveryPause = 100 * time.Millisecond
)

// recovered runs check until it succeeds, and fails the test with its
// last error when recoveryBound passes first.
func recovered(t *testing.T, what string, check func() error) {
	t.Helper()
	eventually(t, what+": served again", recoveryBound, check)
}

// eventually runs check every recoveryPause until it succeeds, and fails
// the test with its last error when bound passes first.
func eventually(t *testing.T, what string, bound time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %v", what, bound, err)
		}
		time.Sleep(recoveryPause)
	}
}

// servesRaw is a check for recovered: a RawSocket session joins at addr.
func servesRaw(t *testing.T, addr string) func() error {
	return func() error {
		_, err := joinRaw(t, addr)
		return err
	}
}

// servesWS is a check for recovered: a WebSocket session joins at url.
func servesWS(t *testing.T, url string) func() error {
	return func() error {
		_, err := joinWS(t, url)
		return err
	}
}

// servesHTTP is a check for recovered: a GET of url answers 200.
func servesHTTP(t *testing.T, url string) func() error {
	return func() error {
		code, err := httpGet(t, url)
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("GET %s: status %d", url, code)
		}
		return err
	}
}
