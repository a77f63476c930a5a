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
// its joins and refused joins, by realm and authmethod, and the messages
// it did not relay because their receiver's peer refused them, each way.
// The backend router counts the relayed sessions too, as logged in by the
// proxy (anonymous-proxy or cryptosign-proxy); a refusal at the proxy
// never reaches it.
type Stats struct {
	Sessions     map[wamp.URI]int       // relayed now
	Joins        map[RealmMethod]uint64 // sessions welcomed, by the method the client authenticated with
	AuthFailures map[RealmMethod]uint64 // joins refused after HELLO, by the method tried (else OtherMethod)
	ToClient     Refusals               // the backends' messages that clients' peers refused (toClient)
	ToBackend    Refusals               // the clients' messages that backend connections refused (toBackend)
}

// The directions of Stats' refusals, as logged and labelled in metrics.
const (
	ToClient  = "to_client"
	ToBackend = "to_backend"
)

// Refusals count the messages of one direction that the relay did not
// relay because the receiving peer's Send refused them.
type Refusals struct {
	TooLong     uint64 // longer than the receiver accepts
	Unencodable uint64 // holding a value the receiver's serializer cannot encode
}

// refusals reads l's counts.
func refusals(l *unsent.Log) Refusals {
	return Refusals{TooLong: l.Count(unsent.TooLong), Unencodable: l.Count(unsent.Unencodable)}
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
		ToClient:     refusals(r.byClient), ToBackend: refusals(r.byBackend)}
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
