// Package apiroute parses the templates of the HTTP bridge's "api"
// service: a route's path ("/users/{id}") and the values of its args and
// kwargs ("{id}", "{query.fields}", "{body}", "{body.name}",
// "user-{id}"), and fills them from a request. It is data and matching
// only (the config validates with it, the bridge serves with it): no
// I/O, no WAMP.
package apiroute
