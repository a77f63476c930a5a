// Package node is Junction's composition root: it turns a config.Config into
// running routers, listeners (web, WebSocket and RawSocket transports) and
// components, starts them in order and stops them in reverse.
//
// Config stays data: New translates it into each package's own options
// (router.RealmOptions, web.StaticOptions, websocket.Options, ...), so no
// runtime package ever sees JSON. The web path services and the component
// classes are explicit tables (pathTypes, componentTypes): a new service is one
// line there.
//
// # Lifecycle
//
// New builds everything that does not touch the network (routers, handlers,
// TLS certificates). It does not stop at the first item it cannot build: it
// goes on with the next and fails with every problem, a config.Errors
// sorted by JSON path, as package config reports the file's own errors.
// Start starts the router components (a router's components start
// before its transports, as in Crossbar), then binds the listeners (an
// address in use fails the start with the transport's path and the
// address), serves them, then starts the container components: a router
// component joins and registers or subscribes before Start returns; a
// bridge component of a container only starts connecting, in the
// background, since its router may not be up yet (it retries with backoff,
// and Stop ends the attempts). Guest workers start last, in config order
// (see guestUnit). Stop runs in phases, each in reverse start order: guest
// workers stop with their children; components stop; listeners stop accepting and in-flight HTTP
// requests finish; routers close every WAMP session with GOODBYE
// wamp.close.system_shutdown; then the listeners release their
// connections. A Start that fails part-way runs the same Stop on what had
// started.
//
// # Python components
//
// The Python class components of a worker run in its Python runner (package
// pyrunner's program, spawned with package process; see pyWorker): the
// runner's start waits until each component is ready, a component that
// fails to start fails the start, and the runner's end or its container's
// shutdown is the worker's exit, which the controller's shutdown triggers
// weigh (shutdownPolicy): the node then closes ShutdownRequested, and its
// owner stops it. A router worker's function authenticators are made in
// the same runner (started for them alone if need be) before its
// components, and asked through its control channel (functionAuths).
//
// # Router links
//
// A realm's "rlinks" are components too (rlink), started with the
// container components: each joins its realm as trusted and connects to
// the other router in the background with cryptosign and the node key
// (loadNodeKey: key.priv in the node directory, made at the first link's
// start), reconnecting with backoff; on each connection it mirrors the
// subscriptions and registrations of each side on the other (rlinkLeg) and
// forwards events and calls with forward_for, which the router keeps on
// EVENT and INVOCATION details so that nothing is forwarded back.
//
// # Listeners
//
// Each listener is wrapped in a connlimit.Listener with its endpoint's
// max_connections (by default its share of the descriptor limit, at most
// connlimit.DefaultCeiling for all listeners together, and half of it on a
// listener with a proxy path: connlimit.DefaultMax) and
// max_connections_per_ip. Its server retries
// failed accepts (EMFILE after a burst): the RawSocket server itself,
// net/http for web listeners, whose failures acceptLog logs at warn level.
// A listener whose Serve ends while the node runs is logged at error level
// at once.
package node
