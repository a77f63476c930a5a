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
// TLS certificates); it fails with an error naming the JSON path of the
// offending item. Start binds the listeners (an address in use fails the start
// with the transport's path and the address), serves them, then starts the
// components. Stop runs in phases, each in reverse start order: components
// stop; listeners stop accepting and in-flight HTTP requests finish; routers
// close every WAMP session with GOODBYE wamp.close.system_shutdown; then the
// listeners release their connections. A Start that fails part-way runs the
// same Stop on what had started.
package node
