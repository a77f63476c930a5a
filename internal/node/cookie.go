package node

import (
	"slices"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// cookieStore opens the cookie store of a WebSocket transport or path
// whose "cookie" (at path) is c; nil without cookie tracking. A file
// store is read now and written from the first cookie on; ru closes it.
func (b *builder) cookieStore(path string, ru *routerUnit, c *config.CookieTracking) (*auth.CookieStore, error) {
	if c == nil {
		return nil, nil
	}
	// A reload that builds the path anew (its transport's paths changed)
	// keeps the store of unchanged settings: the browsers' cookies go on
	// authenticating. ru is the running router's unit then.
	for _, u := range slices.Backward(ru.cookies) {
		if u.path == path {
			if u.cfg == *c {
				b.usesCookies(u.store)
				return u.store, nil
			}
			break
		}
	}
	o := auth.CookieOptions{Name: c.Name, Length: c.Length, MaxAge: c.MaxAge, Secure: c.Secure, HTTPOnly: c.HTTPOnly,
		SameSite: c.SameSite, PurgeOnStartup: c.Store.PurgeOnStartup, Logger: b.log.With("cookie", path)}
	if c.Store.Type == "file" {
		o.File = b.resolve(c.Store.Filename)
	}
	s, err := auth.OpenCookieStore(o)
	if err != nil {
		return nil, fieldError(path+".store", err)
	}
	ru.cookies = append(ru.cookies, cookieUnit{path: path, cfg: *c, store: s})
	b.usesCookies(s)
	return s, nil
}

// usesCookies records that a unit built uses store.
func (b *builder) usesCookies(store *auth.CookieStore) {
	if b.cookies == nil {
		b.cookies = make(map[*auth.CookieStore]bool)
	}
	b.cookies[store] = true
}

// replacedPaths forgets the gates and cookie stores of the services in
// paths (a transport's JSON path + ".paths") that a new path tree
// replaced: of the units from before it (ru.gates[:gates],
// ru.cookies[:cookies]), the gates in paths, and the cookie stores in
// paths that the new tree (whose build recorded used) does not use, which
// it closes. Without it, every reload of a web
// transport's paths would add its gates and changed stores to those ru
// holds until the node stops.
func (ru *routerUnit) replacedPaths(paths string, gates, cookies int, used map[*auth.CookieStore]bool) {
	var kept []*clientGateUnit
	for i, g := range ru.gates {
		if i >= gates || !underPaths(paths, g.path) {
			kept = append(kept, g)
		}
	}
	ru.gates = kept
	var keptCookies []cookieUnit
	for i, c := range ru.cookies {
		if i < cookies && underPaths(paths, c.path) && !used[c.store] {
			c.store.Close()
			continue
		}
		keptCookies = append(keptCookies, c)
	}
	ru.cookies = keptCookies
}

// failedPaths forgets the gates and closes the cookie stores that a path
// tree that failed to build or start added from ru.gates[gates] and
// ru.cookies[cookies] on.
func (ru *routerUnit) failedPaths(gates, cookies int) {
	ru.gates = ru.gates[:gates]
	for _, c := range ru.cookies[cookies:] {
		c.store.Close()
	}
	ru.cookies = ru.cookies[:cookies]
}

// cookieUnit is a router's cookie store, with the JSON path and the
// settings it was opened for.
type cookieUnit struct {
	path  string
	cfg   config.CookieTracking
	store *auth.CookieStore
}

// cookieTracker is store as the WebSocket handler's tracker (nil: none).
func cookieTracker(store *auth.CookieStore) websocket.CookieTracker {
	if store == nil {
		return nil
	}
	return store
}

// cookieGate is clientGate for a transport that tracks clients with
// store (nil: none): with "auth.cookie" the cookie authenticator comes
// first, every session that joins by another method is remembered for
// its cookie, and one that logs out (GOODBYE wamp.close.logout) forgets
// it.
func cookieGate(ru *routerUnit, path string, a config.Auth, joinTimeout time.Duration, store *auth.CookieStore) attacher {
	unit := &clientGateUnit{path: path, auth: a}
	auths := authenticators(path+".auth", a, askers{dc: ru.dyn, fa: ru.fn})
	o := router.GateOptions{Auths: auths, JoinTimeout: joinTimeout}
	if store != nil {
		if a.Cookie {
			unit.cookie = auth.Cookie(store)
			o.Auths = append([]auth.Authenticator{unit.cookie}, auths...)
		}
		o.OnJoin = func(id auth.Identity) { store.Remember(id.Peer.CBTID, id) }
		o.OnLogout = func(id auth.Identity) { store.Forget(id.Peer.CBTID) }
	}
	g := ru.gate(o)
	if rg, ok := g.(reloadableGate); ok {
		unit.gate = rg
		ru.gates = append(ru.gates, unit)
	}
	return g
}
