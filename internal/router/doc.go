// Package router is the WAMP v2 router: realms, the session lifecycle
// (HELLO, authentication, WELCOME, GOODBYE, ABORT), authorization, and the
// broker and dealer of the Advanced Profile.
//
// Every session runs on the goroutine that calls Attach: it reads one
// message at a time and handles it there (handlePublish, handleCall, ...).
// Sends never block (wamp.Peer.Send queues or closes a slow consumer), so
// no session can hold up another. LOCKS.md lists the locks and their order.
// A message longer than its receiver accepts (a RawSocket client's
// maximum message length), or holding a value its receiver's serializer
// cannot encode (an in-process session's NaN for a JSON client), is never
// silently lost: the caller of such a RESULT or INVOCATION gets ERROR
// wamp.error.payload_size_exceeded or wamp.error.invalid_argument, such
// an EVENT is counted and logged, such an ERROR is sent without its
// payload; the session stays open (refused.go).
// A dynamic authenticator or authorizer (package auth) is the one thing a
// session waits for: it blocks that session alone, holding no lock, until
// it answers or its timeout passes (authorize.go, handshake.go).
//
// Each realm serves the WAMP meta API (meta*.go: wamp.session.*,
// wamp.registration.*, wamp.subscription.* procedures and events, and
// testaments) unless RealmOptions.DisableMetaAPI is set.
//
// Limits (limits.go) bound what clients can make a realm hold:
// subscriptions, registrations and calls in flight, retained events and
// testaments, each per session and per realm. A request past one gets
// ERROR junction.error.limit_exceeded.
//
// The package imports only wamp, uriindex, auth, lograte, meter,
// loginguard and unsent; transports reach it through their own one-method
// Attacher interface, satisfied by Gate.
package router
