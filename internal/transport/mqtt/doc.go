// Package mqtt is MQTT 3.1.1 as a WAMP transport, as Crossbar.io bridges
// it: each connection is one WAMP session on the configured realm. CONNECT
// becomes HELLO (ticket with the user name and password, anonymous
// otherwise), PUBLISH a WAMP PUBLISH (acknowledged for QoS 1: the PUBACK
// goes when the router has answered PUBLISHED), SUBSCRIBE a WAMP SUBSCRIBE
// per topic filter ("+" a wildcard, a final "#" a prefix subscription,
// retained events asked for), and each EVENT a QoS 0 PUBLISH. Topics map
// "/" to "."; payloads are translated by the mapping of the longest WAMP
// URI prefix (native: a serialized {args, kwargs, ...}; dynamic: encoder
// and decoder procedures). A will is left as a WAMP testament, flushed on
// DISCONNECT. QoS 2, a session to resume and a QoS 2 will are refused, as
// in Crossbar.
//
// The packet codec is our own. The package never imports the router: a
// connection reaches it through Attacher.
package mqtt
