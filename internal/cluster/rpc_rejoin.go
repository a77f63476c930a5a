package cluster

import (
	"context"
	"errors"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// reconcile checks this node's callees against the reg table once the
// node is (again) a member: after an isolation, the other nodes may have
// removed them from the table, thinking this node lost, and, serving on
// (on_isolation serve), another node may have registered a single
// procedure this node's callee also holds. A callee the table does not
// list is added again as a REGISTER would add it; when the table gives
// the procedure to another node, this node's callee loses: it is revoked
// (UNREGISTERED, reason wamp.error.procedure_already_exists). A fenced
// node's clients were closed when it was fenced: only the node's own
// sessions (components, the HTTP bridge) are left to add again, under
// its new epoch. A table that cannot be written leaves things as they
// are (logged).
func (c *calls) reconcile() {
	c.mu.Lock()
	realms := make([]*callRealm, 0, len(c.realms))
	for _, r := range c.realms {
		realms = append(realms, r)
	}
	c.mu.Unlock()
	for _, r := range realms {
		for _, lc := range r.link.LocalCallees() {
			if c.ctx.Err() != nil {
				return
			}
			r.reconcile(lc)
		}
	}
}

// reconcile makes the table list lc, or revokes it. One at a time: two
// (a rejoin's and a repair's) adding lc at once would each find the
// other's entry and take it for another registration.
func (r *callRealm) reconcile(lc router.LocalCallee) {
	c := r.c
	c.fixing.Lock()
	defer c.fixing.Unlock()
	listed, err := r.listed(lc)
	if err == nil && listed {
		return
	}
	if err == nil {
		_, err = r.Register(lc.Registration, lc.Session, lc.CanCancel)
	}
	if isURI(err, wamp.ErrProcedureAlreadyExists) {
		c.disown(regKey(r.name, lc.Match, lc.Procedure), lc.Session)
		if r.link.Revoke(lc.ID, lc.Session) {
			c.log.Warn("cluster: revoked a callee: its procedure is registered on another node (registered on both sides of an isolation)",
				"realm", string(r.name), "procedure", string(lc.Procedure), "session", uint64(lc.Session))
		}
		c.mu.Lock()
		if rec := c.records[regKey(r.name, lc.Match, lc.Procedure)]; rec != nil {
			c.show(rec) // the winner, as the dealer had it before the revocation
		}
		c.mu.Unlock()
		return
	}
	if err != nil {
		c.log.Warn("cluster: a callee of this node is not in the table of registrations",
			"realm", string(r.name), "procedure", string(lc.Procedure), "session", uint64(lc.Session), "err", err)
	}
}

// listed reports whether the reg table lists lc's session on this node.
func (r *callRealm) listed(lc router.LocalCallee) (bool, error) {
	c := r.c
	kv, err := c.table()
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(c.ctx, tableTimeout)
	defer cancel()
	for {
		rec, _, err := c.getRaw(ctx, kv, regKey(r.name, lc.Match, lc.Procedure))
		if err != nil && c.again(ctx, err) {
			continue
		}
		return err == nil && rec != nil && rec.has(c.node.Self(), lc.Session), err
	}
}

// isURI reports whether err is a *wamp.RequestError of uri.
func isURI(err error, uri wamp.URI) bool {
	var re *wamp.RequestError
	return errors.As(err, &re) && re.URI == uri
}
