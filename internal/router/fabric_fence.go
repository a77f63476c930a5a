package router

import (
	"cmp"
	"slices"

	"github.com/junction-wamp/junction/wamp"
)

// Fence is what the cluster calls on a realm while its node is cut off
// and fenced (on_isolation fence): it ends with GOODBYE
// wamp.close.system_shutdown every session of the realm that came from
// outside (not through an Internal gate), so that their clients connect
// to a healthy node, and refuses the joins from outside with ABORT
// junction.error.cluster_isolated until Unfence. The node's own sessions
// (the HTTP bridge's, components') stay: what they ask of other nodes
// fails with junction.error.cluster_isolated. It returns the number of
// sessions it ended; they close in the background.
func (l *RealmLink) Fence() int {
	return l.rm.fence()
}

// Unfence lets sessions from outside join the realm again: its node
// rejoined the cluster.
func (l *RealmLink) Unfence() {
	l.rm.fenced.Store(false)
}

// fence marks rm fenced and ends its sessions from outside.
func (rm *realm) fence() int {
	rm.mu.Lock()
	rm.fenced.Store(true) // under mu: a join after this is refused
	var out []*session
	for _, s := range rm.sessions {
		if !s.gate.opts.Internal {
			out = append(out, s)
		}
	}
	rm.mu.Unlock()
	for _, s := range out {
		s.shutdown(wamp.ErrSystemShutdown)
	}
	return len(out)
}

// errFenced refuses a join from outside while the realm is fenced, and
// fails what would need another node.
func (rm *realm) errFenced() error {
	return wamp.Errorf(wamp.ErrClusterIsolated,
		"node cut off from its cluster: realm %q is served by the other nodes until it rejoins", rm.name)
}

// LocalCallee is a registration of a session of this node, as the cluster
// checks it against its table (LocalCallees).
type LocalCallee struct {
	Registration
	Session   wamp.ID
	CanCancel bool
}

// LocalCallees returns every callee of the realm that is a session of
// this node, one per (registration, session), with the registration's
// Procedure, Match, Policy and ID (its Callees empty).
func (l *RealmLink) LocalCallees() []LocalCallee {
	d := l.rm.dealer
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []LocalCallee
	for _, reg := range d.byID {
		for _, c := range reg.callees {
			if remoteOf(c.s) != nil {
				continue
			}
			out = append(out, LocalCallee{Registration: Registration{ID: reg.id, Procedure: reg.procedure,
				Match: reg.match.String(), Policy: reg.policy}, Session: c.s.id, CanCancel: c.s.canCancel})
		}
	}
	slices.SortFunc(out, func(a, b LocalCallee) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Session, b.Session))
	})
	return out
}

// Revoke removes session, of this node, from the callees of registration
// id, which the cluster's table gives to another node (a single
// registration made on both sides of a partition): it gets UNREGISTERED
// with reason wamp.error.procedure_already_exists if it announced
// registration_revocation, and is closed with GOODBYE
// wamp.close.system_shutdown otherwise (it registers again when it
// reconnects, and learns then). The table is not written: it does not
// list session. It reports whether session held the registration.
func (l *RealmLink) Revoke(id, session wamp.ID) bool {
	rm := l.rm
	s := rm.session(session)
	if s == nil {
		return false
	}
	rm.dealer.mu.Lock()
	_, held := s.regs.m[id]
	rm.dealer.mu.Unlock()
	if !held {
		return false
	}
	if !s.revokeRegs {
		s.shutdown(wamp.ErrSystemShutdown)
		return true
	}
	rm.revokeRegistration(s, id, wamp.ErrProcedureAlreadyExists)
	return true
}
