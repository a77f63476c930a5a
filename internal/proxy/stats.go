package proxy

import (
	"maps"
	"sync"

	"github.com/junction-wamp/junction/internal/unsent"
	"github.com/junction-wamp/junction/wamp"
)

// OtherRealm is the realm that Stats counts a refused join under when its
// HELLO named a realm no route takes (so that clients cannot add labels).
const OtherRealm wamp.URI = "other"

// OtherMethod is the method that Stats counts a refused join under when
// none of its entry's methods applied.
const OtherMethod = "other"

// RealmMethod is a realm and an authentication method: the key of the
// counts by method.
type RealmMethod struct {
	Realm      wamp.URI
	AuthMethod string
}

// Stats are a relay's counters: the client sessions it relays, by realm,
// its joins and refused joins, by realm and authmethod, and the backends'
// messages that its clients' peers refused (toClient). The backend
// router counts the relayed sessions too, as logged in by the proxy
// (anonymous-proxy or cryptosign-proxy); a refusal at the proxy never
// reaches it.
type Stats struct {
	Sessions     map[wamp.URI]int       // relayed now
	Joins        map[RealmMethod]uint64 // sessions welcomed, by the method the client authenticated with
	AuthFailures map[RealmMethod]uint64 // joins refused after HELLO, by the method tried (else OtherMethod)
	TooLong      uint64                 // messages not relayed: longer than the client accepts
	Unencodable  uint64                 // messages not relayed: holding a value the client's serializer cannot encode
}

// counts are a relay's Stats, under their lock: joins and refusals are
// counted once per session, off the relay's message path.
type counts struct {
	mu sync.Mutex
	st Stats
}

func (c *counts) joined(realm wamp.URI, method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	c.st.Sessions[realm]++
	c.st.Joins[RealmMethod{realm, method}]++
}

func (c *counts) left(realm wamp.URI) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.Sessions[realm]--; c.st.Sessions[realm] == 0 {
		delete(c.st.Sessions, realm)
	}
}

func (c *counts) refused(realm wamp.URI, method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	c.st.AuthFailures[RealmMethod{realm, method}]++
}

// init makes the maps. The lock is held.
func (c *counts) init() {
	if c.st.Sessions == nil {
		c.st = Stats{Sessions: map[wamp.URI]int{}, Joins: map[RealmMethod]uint64{}, AuthFailures: map[RealmMethod]uint64{}}
	}
}

// Stats returns a copy of the relay's counters.
func (r *Relay) Stats() Stats {
	r.counts.mu.Lock()
	defer r.counts.mu.Unlock()
	return Stats{Sessions: maps.Clone(r.counts.st.Sessions), Joins: maps.Clone(r.counts.st.Joins),
		AuthFailures: maps.Clone(r.counts.st.AuthFailures),
		TooLong:      r.unsent.Count(unsent.TooLong), Unencodable: r.unsent.Count(unsent.Unencodable)}
}

// realmLabel is realm as the counters name it: OtherRealm when no route
// takes it.
func (r *Relay) realmLabel(realm wamp.URI) wamp.URI {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.realms[realm] {
		return realm
	}
	return OtherRealm
}
