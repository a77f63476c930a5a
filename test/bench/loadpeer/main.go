// Command loadpeer is the other side of the HTTP load runs of make bench
// (scripts/bench-http.sh): a WAMP callee or subscriber connected to a node
// over WebSocket, a plain net/http handler that answers a fixed JSON body
// (the baseline the bridge is compared with), or an upstream for the
// reverse proxy and the Callee. It prints "ready" on
// stdout when it is serving and runs until stdin is closed or it is killed.
//
//	loadpeer callee URL REALM PROCEDURE
//	loadpeer subscriber URL REALM TOPIC
//	loadpeer plain ADDR        (answers POST/GET with {"args":[42]})
//	loadpeer upstream ADDR     (answers GET with 1 KiB of text)
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "loadpeer:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: loadpeer callee|subscriber URL REALM URI | plain|upstream ADDR")
	}
	switch args[0] {
	case "callee", "subscriber":
		if len(args) != 4 {
			return fmt.Errorf("usage: loadpeer %s URL REALM URI", args[0])
		}
		return wampPeer(args[0], args[1], wamp.URI(args[2]), wamp.URI(args[3]))
	case "plain":
		return serve(args[1], func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"args":[42]}`)
		})
	case "upstream":
		page := strings.Repeat("x", 1024)
		return serve(args[1], func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			io.WriteString(w, page)
		})
	}
	return fmt.Errorf("unknown mode %q", args[0])
}

func serve(addr string, h http.HandlerFunc) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	go http.Serve(l, h)
	fmt.Println("ready", l.Addr())
	io.Copy(io.Discard, os.Stdin)
	return nil
}

func wampPeer(mode, url string, realm, uri wamp.URI) error {
	ctx := context.Background()
	dial := func(ctx context.Context) (wamp.Peer, error) {
		return websocket.Dial(ctx, url, websocket.DialOptions{Subprotocols: []string{"wamp.2.msgpack"}})
	}
	c, err := client.Connect(ctx, dial, client.Config{Realm: realm}, client.ReconnectOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	var events atomic.Int64
	if mode == "callee" {
		echo := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			return &client.Result{Args: inv.Args, Kwargs: inv.Kwargs}, nil
		}
		_, err = c.Register(ctx, uri, echo, nil)
	} else {
		_, err = c.Subscribe(ctx, uri, func(*client.Event) { events.Add(1) }, nil)
	}
	if err != nil {
		return err
	}
	fmt.Println("ready")
	start := time.Now()
	io.Copy(io.Discard, os.Stdin)
	if mode == "subscriber" {
		fmt.Fprintf(os.Stderr, "loadpeer: %d events in %s\n", events.Load(), time.Since(start).Round(time.Millisecond))
	}
	return nil
}
