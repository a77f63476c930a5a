package rawsocket

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/junction-wamp/junction/internal/transport/outbox"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// DialOptions configures Dial. The zero value speaks msgpack.
type DialOptions struct {
	Serializer     string // codec name; default "msgpack"
	MaxMessageSize int    // the longest message we accept, as for Options; default 1 MiB
	PingInterval   time.Duration
	PingTimeout    time.Duration
	Outbox         outbox.Options
	// TLSConfig, if set, runs the connection over TLS (its ServerName must
	// be set to verify the server).
	TLSConfig *tls.Config
	// RawPayloads keeps received payloads as they came (wamp.Raw, decoded
	// only when read), as a server does: for a relay that forwards
	// messages without reading them (a proxy worker's backend connection).
	// By default a client decodes every payload on receipt.
	RawPayloads bool
}

// Dial connects to a RawSocket server on network "tcp" or "unix" (over TLS
// with TLSConfig) and performs the handshake; ctx bounds both.
func Dial(ctx context.Context, network, address string, opts DialOptions) (wamp.Peer, error) {
	c, err := dialCodec(opts.Serializer)
	if err != nil {
		return nil, err
	}
	maxSize := opts.MaxMessageSize
	if maxSize <= 0 {
		maxSize = DefaultMaxMessageSize
	}
	maxSize = roundLen(min(maxSize, maxFrameLen+1))
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, fmt.Errorf("rawsocket: dial: %w", err)
	}
	if opts.TLSConfig != nil {
		tc := tls.Client(conn, opts.TLSConfig)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("rawsocket: dial: %w", err)
		}
		conn = tc
	}
	serverMax, err := clientHandshake(ctx, conn, c, maxSize)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return newPeer(conn, peerConfig{
		codec: clientCodec(c, opts.RawPayloads), remote: remote{addr: address, tls: opts.TLSConfig != nil},
		sendLimit: min(serverMax, maxFrameLen), recvLimit: min(maxSize, maxFrameLen),
		pingInterval: opts.PingInterval, pingTimeout: opts.PingTimeout, outbox: opts.Outbox,
	}), nil
}

func dialCodec(name string) (codec.Codec, error) {
	if name == "" {
		name = "msgpack"
	}
	c, _, ok := codec.Lookup("wamp.2." + name)
	if !ok {
		return nil, fmt.Errorf("rawsocket: unknown serializer %q", name)
	}
	return c, nil
}

// clientHandshake sends our handshake and reads the answer, within ctx;
// it returns the server's maximum message length.
func clientHandshake(ctx context.Context, conn net.Conn, c codec.Codec, maxSize int) (int, error) {
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	serverMax, err := exchangeHello(conn, c, maxSize)
	if !stop() {
		return 0, fmt.Errorf("rawsocket: handshake: %w", ctx.Err())
	}
	conn.SetDeadline(time.Time{})
	return serverMax, err
}

func exchangeHello(conn net.Conn, c codec.Codec, maxSize int) (int, error) {
	b := helloBytes(c.RawSocketID(), maxSize)
	if _, err := conn.Write(b[:]); err != nil {
		return 0, fmt.Errorf("rawsocket: handshake: %w", err)
	}
	return readAnswer(conn, c.RawSocketID())
}

// clientCodec is c for a client: Eager unless raw payloads are wanted.
func clientCodec(c codec.Codec, raw bool) codec.Codec {
	if raw {
		return c
	}
	return codec.Eager(c)
}
