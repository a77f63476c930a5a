// Package client is a WAMP v2 client: a Session joins a realm over any
// wamp.Peer (Join) and calls, registers, publishes and subscribes; a Client
// (Connect) keeps a session alive across connection losses, redialing with
// backoff and renewing its registrations and subscriptions.
//
// # Connecting
//
// Dial connects to a router by URL and returns the wamp.Peer that Join
// takes; NewDialer makes the Dialer that Connect redials with:
//
//	ws://host:port/path, wss://...        WebSocket (TLS for wss)
//	ws+unix:///path/to.sock[:/http/path]  WebSocket over a Unix socket
//	rs://host:port, tcp://host:port       RawSocket over TCP
//	rss://host:port, tls://host:port      RawSocket over TLS
//	unix:///path/to.sock                  RawSocket over a Unix socket
//	http://host:port/path, https://...    HTTP long-poll (Crossbar's longpoll service)
//
// DialOptions picks the serializer ("json", "msgpack", "cbor", "ubjson"),
// TLS (a client certificate included), handshake headers, the message
// size limit and keepalive pings; its zero value is ready. A router
// embedded in the same process gives its sessions a peer without a
// socket instead (see the junction package).
//
// # Authentication
//
// Config.Auth lists the methods offered, in order: Ticket, WampCRA
// (salted or not), Cryptosign, Scram, TLS (the certificate of
// DialOptions.TLSConfig) and Anonymous; none means anonymous. Config.AuthID
// names the principal. A refusal is an error wrapping a *wamp.RequestError
// whose URI is the router's ABORT reason.
//
// # Errors
//
// A router's or callee's ERROR is a *wamp.RequestError (errors.As, or
// errors.Is with &wamp.RequestError{URI: ...} to match the URI alone). A
// request whose ctx ends returns an error wrapping ctx.Err(); one on an
// ended session returns the session's Err (ErrClosed after Leave or
// Close).
//
// # Concurrency
//
// Every method of Session and Client is safe for concurrent use. Each
// session runs one reader goroutine, one event dispatch goroutine and
// one goroutine per running invocation (which waits up to a second for
// the next invocation before it exits). User callbacks (handlers,
// progress functions, OnJoin and OnLeave) never run with a lock held.
//
// # Stability
//
// Junction is before v1: its Go API may still change in a minor release,
// and the CHANGELOG says when it does. Everything in this package is meant
// to stay, except WithIdentity, IdentityFrom and Event.Audience, which
// serve the sessions a Junction node runs for others (its HTTP bridge)
// and change with it.
package client
