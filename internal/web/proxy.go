package web

import (
	"context"
	"net/http"
)

// Proxy is a path service that passes what it receives on to another
// server: a ReverseProxy ("reverseproxy") or a WebSocketProxy
// ("websocket-reverseproxy"). Shutdown is its one stop, for when the
// service stops after the web server's own Shutdown: it ends what passes
// through the proxy, which http.Server.Shutdown leaves alone (upgraded and
// relayed connections), and releases what the proxy holds (idle upstream
// connections), within ctx; it returns ctx's error when ctx ended first.
type Proxy interface {
	http.Handler
	Shutdown(ctx context.Context) error
}
