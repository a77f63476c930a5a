// Package h1 is an HTTP/1.1 server engine below net/http's Server: it
// serves an ordinary http.Handler (Hijack, Flush, the deadlines and full
// duplex of http.ResponseController included) with a goroutine per
// connection and less work per request than http.Server.
//
// The common request head (a plain method such as GET or POST, a target
// that begins with "/", HTTP/1.1 or 1.0, simple field lines, one valid
// Host, no Transfer-Encoding nor Trailer, at most one Content-Length of
// digits) is parsed by the engine's own parser (fasthead.go), from the
// bytes already buffered, when the whole head is there: it gives the
// request that
// http.ReadRequest and the engine's checks would, with fewer allocations
// (FuzzRequestHead holds the two equal, field by field, body and the
// bytes after it included). Every other head, and one not yet whole in
// the buffer, goes to http.ReadRequest, the standard library's strict
// parser (request smuggling defences, chunked and Content-Length bodies,
// Transfer-Encoding validation); the engine adds the checks net/http's
// server makes after it (Host required and valid, header field names and
// values valid, Expect, header size, protocol version) and refuses what
// it refuses with the same status, so that a request the one server
// refuses the other refuses too (the differential tests and
// FuzzEngineVsStdlib hold the two side by side). The engine's parser
// refuses nothing: what it does not accept is left, unread, to
// http.ReadRequest.
//
// What it saves against net/http: the per-request background read that
// watches for the client going away (a goroutine, a 1-byte read and
// three read deadlines) starts only for a handler still running after
// WatchDelay, once its request body has been read (see watch.go); a
// request answered sooner never pays for it. Read deadlines are set only
// around reads from the connection: none for a head, nor a body, that
// arrived whole with the bytes before it, so a keep-alive request sent at
// once costs one (the idle timeout's); the body timeout (BodyTimeout) is
// the engine's, with no copy of the request and no middleware. The
// header map of a finished answer (its handler returned, the connection
// not hijacked) serves the next answer on the connection, cleared: a
// handler must not use w.Header() after ServeHTTP returns, as the
// http.ResponseWriter contract says.
//
// Deliberate differences from net/http: an HTTP/2 connection preface
// ("PRI * HTTP/2.0") is refused with 505 and the connection closed (net/http
// hands it to the handler, for h2c upgrades this server never makes); the
// request context carries http.LocalAddrContextKey but not
// http.ServerContextKey (there is no *http.Server); there is no HTTP/2.
package h1
