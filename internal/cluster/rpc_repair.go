package cluster

import (
	"context"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// owned is what this node wrote of one record of the reg table: the
// sessions of its realm it added as callees and has not removed since.
type owned struct {
	realm    wamp.URI
	sessions map[wamp.ID]bool
}

// own notes that session of realm is this node's callee in record key.
func (c *calls) own(realm wamp.URI, key string, session wamp.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.owned[key]
	if o == nil {
		o = &owned{realm: realm, sessions: map[wamp.ID]bool{}}
		c.owned[key] = o
	}
	o.sessions[session] = true
}

// disown notes that session is no longer this node's callee in record
// key: done before the table is written, so that the removal is not
// taken for another node's and repaired.
func (c *calls) disown(key string, session wamp.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if o := c.owned[key]; o != nil {
		delete(o.sessions, session)
		if len(o.sessions) == 0 {
			delete(c.owned, key)
		}
	}
}

// owns reports whether session is this node's callee in record key.
func (c *calls) owns(key string, session wamp.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.owned[key]
	return o != nil && o.sessions[session]
}

// checkOwned starts a repair of record key when rec (nil: deleted) no
// longer lists a callee this node added: another node removed it,
// thinking this node lost (it stopped hearing it while this node heard
// a majority: an asymmetric cut, heartbeats late under load). A node
// isolated, or stopping, leaves the table alone (after an isolation,
// reconcile checks every callee). c.mu must be held.
func (c *calls) checkOwned(key string, rec *record) {
	o := c.owned[key]
	if o == nil || c.repairing[key] || c.leaving.Load() || c.ctx.Err() != nil {
		return
	}
	self := c.node.Self()
	missing := false
	for s := range o.sessions {
		if rec == nil || !rec.has(self, s) {
			missing = true
			break
		}
	}
	if !missing {
		return
	}
	if _, isolated := c.node.isolation(); isolated {
		return
	}
	c.repairing[key] = true
	realm := o.realm
	c.wg.Go(func() { c.repair(realm, key) })
}

// repair adds this node's live callees of record key back to the table
// as a REGISTER would (reconcile): a single procedure another node took
// meanwhile stays the other node's, and this node's callee is revoked.
// A callee unregistered while it was added back is removed again.
func (c *calls) repair(realm wamp.URI, key string) {
	c.mu.Lock()
	delete(c.repairing, key)
	r := c.realms[realm]
	c.mu.Unlock()
	if r == nil {
		return
	}
	for _, lc := range r.link.LocalCallees() {
		if regKey(r.name, lc.Match, lc.Procedure) != key || !c.owns(key, lc.Session) {
			continue
		}
		if c.ctx.Err() != nil || c.leaving.Load() {
			return
		}
		if listed, err := r.listed(lc); err == nil && listed {
			continue // a change the watcher saw late, or a rejoin's check added it
		}
		c.log.Warn("cluster: a callee of this node was removed from the table of registrations by another node; adding it again",
			"realm", string(realm), "procedure", string(lc.Procedure), "session", uint64(lc.Session))
		r.reconcile(lc)
		if !c.owns(key, lc.Session) {
			r.retire(lc)
		}
	}
}

// retire removes lc, unregistered while it was added back, from the
// table again.
func (r *callRealm) retire(lc router.LocalCallee) {
	c := r.c
	ctx, cancel := context.WithTimeout(c.ctx, tableTimeout)
	defer cancel()
	self := c.node.Self()
	key := regKey(r.name, lc.Match, lc.Procedure)
	if err := c.update(ctx, key, func(e entry) bool { return e.member == self && e.session == lc.Session }); err != nil && ctx.Err() == nil {
		c.log.Warn("cluster: cannot remove an unregistered callee from the table", "key", key, "err", err)
	}
}
