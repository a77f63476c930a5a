// Package client is a WAMP v2 client: a Session joins a realm over any
// wamp.Peer (Join) and calls, registers, publishes and subscribes; a Client
// (Connect) keeps a session alive across connection losses, redialing with
// backoff and renewing its registrations and subscriptions.
//
// Concurrency: every method of Session and Client is safe for concurrent
// use. Each session runs one reader goroutine, one event dispatch goroutine
// and one goroutine per running invocation (which waits up to a second for
// the next invocation before it exits). User callbacks (handlers,
// progress functions) never run with a lock held.
package client
