// Package bridge holds the HTTP -> WAMP bridge services of a Web transport:
// the Caller (POST a JSON body, get the result of a WAMP call), the
// Publisher (POST a JSON body, publish a WAMP event) and the Webhook (POST
// anything, publish it as one event). Each is an http.Handler built from a Go
// options struct (NewCaller, NewPublisher, NewWebhook) over an embedded WAMP
// session (the Session interface, which *client.Client satisfies).
//
// The three services share one request pipeline (pipeline.go): CORS, then
// what needs no body (require_ip, require_tls, method, content type), then
// the body (its limit, and room in the BodyBuffer the services of a web
// transport share), query parsing and request signatures with replay
// protection, then the JSON body, which holds room in the BodyBuffer for
// its decoded value. Handlers return errors and one function (respond.go) writes
// them; one table (status.go) maps WAMP error URIs to HTTP statuses. The
// contract: Crossbar.io's HTTP bridge clients work unchanged (requests,
// answers, error texts and signatures as Crossbar's), and where Crossbar is
// not safe this bridge is stricter.
//
// Two services answer with Server-Sent Events (sse.go): the Caller, for a
// client that accepts text/event-stream, writes each progressive result as
// it comes (caller_stream.go); the EventStream (NewEventStream) serves a
// GET as a stream of the events of its topics, each stream subscribed on
// the service's one session, with a bounded queue per client
// (eventstream_queue.go) between the session's event dispatch and the
// request's goroutine, which writes.
//
// Concurrency: the handlers are safe for concurrent use; the only shared
// mutable state is the nonce cache, which has its own lock, the body
// buffer's count of reserved bytes, an atomic, the rate limits of
// warnings, which have their own locks, and the event stream's frame
// cache and its streams' queues, each with its own leaf lock (the frame
// cache's is held while an event is encoded, a queue's while it sets a
// connection's write deadline).
package bridge
