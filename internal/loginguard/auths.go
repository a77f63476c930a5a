package loginguard

import (
	"sync/atomic"

	"github.com/junction-wamp/junction/internal/auth"
)

// Auths are the authenticators of an entry (a router's gate, a proxy's
// entry), which a reload may replace whole while handshakes read them.
// None means anonymous with role "anonymous". The zero value holds none
// until Set.
type Auths struct {
	p atomic.Pointer[[]auth.Authenticator]
}

// Set replaces the authenticators; the handshakes that pick one from now
// on use them.
func (a *Auths) Set(auths []auth.Authenticator) {
	if len(auths) == 0 {
		auths = []auth.Authenticator{auth.Anonymous("")}
	}
	a.p.Store(&auths)
}

// Pick returns the authenticator of req (auth.Pick), and the set it was
// picked from, which a later Current tells apart from a replacement.
func (a *Auths) Pick(req *auth.Request) (auth.Authenticator, *[]auth.Authenticator) {
	auths := a.p.Load()
	return auth.Pick(*auths, req), auths
}

// Current is the set Pick picks from now.
func (a *Auths) Current() *[]auth.Authenticator { return a.p.Load() }
