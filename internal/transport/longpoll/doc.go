// Package longpoll is WAMP over HTTP long-poll, as Crossbar.io serves it
// (its "longpoll" web path service) and autobahn-js speaks it. A Handler
// serves, relative to its mount point, all by POST:
//
//	/open              body {"protocols": ["wamp.2.json", ...]}; answers
//	                   {"transport": id, "protocol": chosen}
//	/<id>/send         one message, or several with a ".batched" protocol;
//	                   answers 204 once the session has taken them
//	/<id>/receive      held until messages are queued, then answers them
//	                   (all of them, batched, or the first one), or empty
//	                   after RequestTimeout
//	/<id>/close        ends the transport and its session; answers 204
//
// Each transport is a wamp.Peer handed to the Attacher on open. Messages
// for the client wait in a bounded queue (QueueLimitMessages,
// QueueLimitBytes): a client that does not poll fast enough is closed as a
// slow consumer, as the stream transports' outbox does. A transport that
// gets no request for SessionTimeout (and holds no receive) is closed.
//
// Concurrency: a Handler serves requests concurrently; each transport's
// mutex guards its queue and state (no callback runs under it). Recv runs
// on the session's goroutine, fed by the send requests through a channel.
package longpoll
