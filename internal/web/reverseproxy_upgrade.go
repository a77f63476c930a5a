package web

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"sync"
)

// serveUpgrade proxies a request that asks for a WebSocket upgrade,
// registered in p.upgraded until the relay ends, so that Shutdown can end
// it: its context is canceled, which makes httputil close the upstream
// connection (also while it still waits for the upstream's 101), and the
// client's connection is closed once hijacked. httputil relays the bytes
// both ways after a 101 whose Upgrade is the one asked for.
func (p *ReverseProxy) serveUpgrade(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	u := &upgrade{cancel: cancel}
	if !p.upgraded.add(u) {
		writeSmallJSON(w, r, http.StatusServiceUnavailable, `{"error":"service unavailable","reason":"the proxy is stopping"}`)
		return
	}
	defer p.upgraded.remove(u)
	p.proxy.ServeHTTP(&upgradeWriter{ResponseWriter: w, set: &p.upgraded, u: u}, r.WithContext(ctx))
}

// upgrade is one upgrade request in p.upgraded.
type upgrade struct {
	cancel context.CancelFunc // ends the request, and the relay
	conn   net.Conn           // the client's connection once hijacked; under upgradeSet.mu
}

// upgradeWriter records the connection httputil.ReverseProxy hijacks for
// an upgrade, so that Shutdown can close it.
type upgradeWriter struct {
	http.ResponseWriter
	set *upgradeSet
	u   *upgrade
}

// Hijack hands the connection over and records it; if Shutdown ran
// meanwhile, the connection is closed at once instead.
func (w *upgradeWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if !w.set.hijacked(w.u, c) {
		_ = c.Close()
		w.u.cancel() // so that the error is taken for the client gone
		return nil, nil, context.Canceled
	}
	return c, rw, nil
}

// Unwrap gives http.ResponseController the writer below.
func (w *upgradeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// upgradeSet holds the upgrades in progress until they end or are closed
// together. The zero value is ready to use.
type upgradeSet struct {
	mu     sync.Mutex
	ups    map[*upgrade]struct{}
	closed bool
}

// add records u; it returns false once closeAll has run.
func (s *upgradeSet) add(u *upgrade) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.ups == nil {
		s.ups = make(map[*upgrade]struct{})
	}
	s.ups[u] = struct{}{}
	return true
}

// hijacked records u's connection; it returns false once closeAll has run.
func (s *upgradeSet) hijacked(u *upgrade, c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	u.conn = c
	return true
}

func (s *upgradeSet) remove(u *upgrade) {
	s.mu.Lock()
	delete(s.ups, u)
	s.mu.Unlock()
}

// closeAll ends every upgrade held and refuses later ones.
func (s *upgradeSet) closeAll() {
	s.mu.Lock()
	s.closed = true
	ups := s.ups
	s.ups = nil
	s.mu.Unlock()
	for u := range ups {
		u.cancel()
		if u.conn != nil {
			_ = u.conn.Close()
		}
	}
}
