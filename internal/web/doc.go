// Package web is Junction's web transport: one HTTP listener whose URL space
// is a tree of path services, as in Crossbar.io's "web" transport.
//
// A Tree maps URL segments to http.Handlers; a "path" service is a nested
// Tree. The simple services live here too: Static (files under a directory,
// confined with os.Root), Archive (the entries of a ZIP file, which
// FetchArchive downloads), Redirect, JSON, NodeInfo and the Dashboard (the
// operator's live page: its HTML, CSS and script embedded, its data from
// the node as JSON and Server-Sent Events), and the two proxies,
// each a Proxy whose Shutdown ends what passes through it: ReverseProxy
// (an HTTP upstream behind the mount point, WebSocket upgrades included)
// and WebSocketProxy (each WebSocket relayed frame by frame to a backend).
// The WAMP WebSocket and bridge services are built by other packages and
// mounted as plain http.Handlers. Server wraps an HTTP/1.1 engine (h1,
// net/http's server, or the loop engine, whose event loops serve plain
// proxied GET and HEAD requests themselves: see ServerOptions.Engine) with
// timeouts (request headers, idle connections, and stalled request
// bodies: see ServerOptions.BodyTimeout), TLS, HSTS, an access log and
// graceful shutdown.
//
// # How a service sees its request
//
// When a Tree hands a request to the service mounted at key k, the request
// is a shallow copy whose URL.Path (decoded) and URL.RawPath (as received)
// hold only the remaining path below the mount point: "/static/css/a.css"
// reaches the service at "static" with URL.Path "/css/a.css", "/static/"
// with "/", and "/static" with "" (the service decides: Static redirects to
// "/static/"). The root service ("/") sees the whole path. MountPath(r)
// gives the escaped prefix consumed so far ("/static", or "/nested/static"
// through a nested Tree) and OriginalPath(r) the escaped path as received;
// r.RequestURI is left untouched. Nothing is put in request headers.
//
// This package does not read configuration files: internal/node translates
// the config into the Options structs declared here.
package web
