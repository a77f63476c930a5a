// Package rest is the WAMP -> HTTP half of the HTTP bridge: the Callee
// (class router.adapter.rest.RESTCallee) registers one procedure and turns
// each call into an HTTP request below a configured base URL, and the
// Subscriber (class router.adapter.rest.MessageForwarder) forwards each event
// of its subscriptions to an HTTP endpoint.
//
// Both are components: they are built from option structs (NewCallee,
// NewSubscriber; package config decodes and checks a component's "extra",
// package node translates it) and run on a reconnecting client.Client given
// to Start, which renews their registration and subscriptions after a
// reconnect.
//
// Callee errors (the URI of the WAMP ERROR answering the call):
//
//	wamp.error.invalid_argument  bad kwargs; a target outside baseurl (no
//	                             request is made); a redirect leaving baseurl
//	wamp.error.timeout           no complete response within the timeout
//	wamp.error.canceled          the call was canceled, or the callee stops
//	wamp.error.runtime_error     transport failure (DNS, connect, TLS, reset),
//	                             a response larger than the size limit
//
// wamp.error.runtime_error is what Crossbar sends for every transport
// failure. A non-2xx status is not an error: it is the result's "code".
//
// Response content is decoded by the Content-Type charset: UTF-8 (the
// default) and ISO-8859-1 (with its aliases latin1, us-ascii, ...) are
// decoded exactly; any other charset is read as UTF-8 with invalid bytes
// replaced by U+FFFD.
//
// Subscriber overload policy: each subscription has one delivery goroutine
// reading a bounded queue, so events of a subscription are delivered in
// order and the session's event dispatch never blocks. A full queue drops
// the new event (counted in Stats, logged at most once per second); a
// delivery that still fails after its retries is dropped and counted too.
package rest
