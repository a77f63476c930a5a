package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// joinTimeout bounds one session's dial and join.
const joinTimeout = time.Minute

// target is the router every session of a run connects to, and how.
type target struct {
	transport  string // "websocket" or "rawsocket"
	addr       string // host:port
	path       string // the WebSocket URL path
	serializer string // json, msgpack, cbor or ubjson
	realm      string
}

func (t *target) flags(fs *flag.FlagSet) {
	fs.StringVar(&t.transport, "transport", "websocket", "websocket or rawsocket")
	fs.StringVar(&t.addr, "addr", "", "the router's address, host:port (required)")
	fs.StringVar(&t.path, "path", "/", "the WebSocket URL path")
	fs.StringVar(&t.serializer, "serializer", "json", "json, msgpack, cbor or ubjson")
	fs.StringVar(&t.realm, "realm", "realm1", "the realm every session joins")
}

func (t *target) check() error {
	if t.addr == "" {
		return fmt.Errorf("-addr is required")
	}
	switch t.transport {
	case "websocket", "rawsocket":
	default:
		return fmt.Errorf("-transport %q: want websocket or rawsocket", t.transport)
	}
	switch t.serializer {
	case "json", "msgpack", "cbor", "ubjson":
	default:
		return fmt.Errorf("-serializer %q: want json, msgpack, cbor or ubjson", t.serializer)
	}
	return nil
}

// dial opens one connection to the router.
func (t *target) dial(ctx context.Context) (wamp.Peer, error) {
	if t.transport == "rawsocket" {
		return rawsocket.Dial(ctx, "tcp", t.addr, rawsocket.DialOptions{Serializer: t.serializer})
	}
	url := "ws://" + t.addr + t.path
	return websocket.Dial(ctx, url, websocket.DialOptions{Subprotocols: []string{"wamp.2." + t.serializer}})
}

// join opens one session on the target's realm.
func (t *target) join() (*client.Session, error) {
	ctx, cancel := context.WithTimeout(context.Background(), joinTimeout)
	defer cancel()
	p, err := t.dial(ctx)
	if err != nil {
		return nil, err
	}
	s, err := client.Join(ctx, p, client.Config{Realm: wamp.URI(t.realm)})
	if err != nil {
		p.Close()
		return nil, err
	}
	return s, nil
}

// joinMany opens n sessions, at most parallel at a time, and returns
// them; on an error it closes the ones it opened.
func (t *target) joinMany(n, parallel int) ([]*client.Session, error) {
	sessions := make([]*client.Session, n)
	errs := make(chan error, n)
	sem := make(chan struct{}, max(parallel, 1))
	for i := range sessions {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			s, err := t.join()
			sessions[i] = s
			errs <- err
		}()
	}
	var first error
	for range sessions {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		closeAll(sessions)
		return nil, fmt.Errorf("join: %w", first)
	}
	return sessions, nil
}

// closeAll closes every session of the list that is not nil.
func closeAll(sessions []*client.Session) {
	for _, s := range sessions {
		if s != nil {
			s.Close()
		}
	}
}

// unique is prefix with a random last component: two runs against one
// router never share a procedure or a topic, even while the sessions of
// the first are still being closed.
func unique(prefix string) wamp.URI {
	return wamp.URI(prefix + "." + strconv.FormatUint(rand.Uint64(), 36))
}
