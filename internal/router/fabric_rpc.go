package router

import (
	"errors"

	"github.com/junction-wamp/junction/wamp"
)

// Node names a member of the cluster: its name and the epoch of its
// start (cluster.Member's shape, so that the cluster converts one into
// the other).
type Node struct {
	Name  string
	Epoch uint64
}

// Callee is one callee of a registration in the cluster's table: a
// session on a node, and its place in the registration order.
type Callee struct {
	Node    Node
	Session wamp.ID
	// Order is the callee's place in the registration's order across the
	// cluster (first and last pick by it): the table gives each callee a
	// number larger than those of the callees before it.
	Order     uint64
	CanCancel bool // the session announced call_canceling
}

// Registration is one record of the cluster's table of registrations.
type Registration struct {
	ID        wamp.ID // the same on every node (CallFabric.RegistrationID)
	Procedure wamp.URI
	Match     string // wamp.MatchExact, MatchPrefix or MatchWildcard
	Policy    string // wamp.InvokeSingle, ...
	Callees   []Callee
}

// CallFabric is the RPC part of a realm's side of the cluster: what the
// dealer tells the other nodes. Register and Unregister run on the
// session's goroutine and may wait for the cluster's table; the others
// must not block. The dealer calls them with no lock held.
type CallFabric interface {
	// RegistrationID is the ID of the registration of (procedure, match),
	// the same on every node.
	RegistrationID(procedure wamp.URI, match string) wamp.ID
	// Register adds session, on this node, to the callees of reg (whose
	// Callees are ignored) in the cluster's table, before REGISTERED is
	// sent, and returns its Order. It fails with a *wamp.RequestError:
	// wamp.error.procedure_already_exists when the table holds the
	// procedure with policy single or another policy, or
	// junction.error.cluster_unavailable.
	Register(reg Registration, session wamp.ID, canCancel bool) (order uint64, err error)
	// Unregister removes session, on this node, from the callees of
	// (procedure, match): UNREGISTER, or the session left. It fails with
	// a *wamp.RequestError junction.error.cluster_unavailable when the
	// table cannot be written: an UNREGISTER then fails and the session
	// stays a callee.
	Unregister(procedure wamp.URI, match string, session wamp.ID) error
	// Send forwards m to node to: an INVOCATION or INTERRUPT for its
	// session callee, or the RESULT or ERROR of this node's session
	// callee for a call made on node to. The other node hands it to
	// RealmLink.DeliverCall. An error means it could not be sent.
	Send(to Node, callee wamp.ID, m wamp.Message) error
	// Sync returns once every registration the cluster's table held when
	// it was called is in the dealer: a CALL that finds no registration
	// asks before it answers no_such_procedure, so that a registration
	// made on another node is found once its REGISTERED was sent.
	Sync() error
}

// SetRegistration makes the dealer's remote callees of (reg.Procedure,
// reg.Match) those of reg, in the order of their Order: the cluster calls
// it with the callees on other nodes of each record of its table as it
// changes (none when the record was deleted). A remote callee removed
// keeps its invocations in flight, as a local one that unregisters does.
func (l *RealmLink) SetRegistration(reg Registration) {
	l.rm.dealer.setRemote(reg)
}

// DeliverCall hands the dealer a message that node from sent with
// CallFabric.Send: an INVOCATION or INTERRUPT for the local session
// callee, or the RESULT or ERROR of from's session callee, taken as if
// that callee had sent the YIELD or ERROR here. Messages of one node are
// delivered one at a time, in the order sent.
func (l *RealmLink) DeliverCall(from Node, callee wamp.ID, m wamp.Message) {
	d := l.rm.dealer
	switch m := m.(type) {
	case *wamp.Invocation:
		d.remoteInvocation(from, callee, m)
	case *wamp.Interrupt:
		d.remoteInterrupt(from, callee, m)
	case *wamp.Result:
		d.remoteResult(from, callee, m)
	case *wamp.Error:
		d.remoteError(from, callee, m)
	}
}

// DropNode removes every remote callee on node n, which left the
// cluster: the callers of their invocations in flight get ERROR
// wamp.error.canceled, and the calls n's sessions made to local callees
// end (INTERRUPT killnowait to those callees).
func (l *RealmLink) DropNode(n Node) {
	l.rm.dealer.dropNode(n)
}

// link links rm to the cluster (the router has a Fabric, and rm is not
// Local). The dealer is ready for the link's calls before Fabric.Realm
// is called (the fabric may tell it the registrations it knows at once);
// nothing sends to the fabric before rm is in the router's realms, after
// rm.fabric was set.
func (rm *realm) link() {
	rm.dealer.remote = newRemotes(rm)
	rm.fabric = rm.router.fabric.Realm(rm.name, &RealmLink{rm: rm})
	if rm.fabric == nil {
		rm.dealer.remote = nil
	}
}

// unlink closes rm's link to the cluster, once.
func (rm *realm) unlink() {
	if rm.fabric != nil {
		rm.unlinked.Do(rm.fabric.Close)
	}
}

// announce registers session s, in the cluster's table, as a callee of
// (procedure, match) before the dealer does: see CallFabric.Register. It
// returns s's order; 0 on one node.
func (rm *realm) announce(s *session, procedure wamp.URI, match, policy string) (uint64, error) {
	if rm.fabric == nil {
		return 0, nil
	}
	reg := Registration{ID: rm.fabric.RegistrationID(procedure, match), Procedure: procedure, Match: match, Policy: policy}
	return rm.fabric.Register(reg, s.id, s.canCancel)
}

// retract removes session id from the callees of (procedure, match) in
// the cluster's table, if any: see CallFabric.Unregister.
func (rm *realm) retract(procedure wamp.URI, match string, id wamp.ID) error {
	if rm.fabric == nil {
		return nil
	}
	return rm.fabric.Unregister(procedure, match, id)
}

// callAfterSync retries a call that found no registration (err) once the
// dealer holds every registration the cluster's table had (Sync). A
// fenced node fails it at once: junction.error.cluster_isolated.
func (rm *realm) callAfterSync(s *session, m *wamp.Call, opts callOptions, err error) (*call, *wamp.Invocation, chan struct{}, error) {
	var re *wamp.RequestError
	if !errors.As(err, &re) || re.URI != wamp.ErrNoSuchProcedure {
		return nil, nil, nil, err
	}
	if rm.fenced.Load() {
		return nil, nil, nil, rm.errFenced() // the callees of other nodes are out of reach
	}
	if rm.fabric.Sync() != nil {
		return nil, nil, nil, err
	}
	return rm.dealer.call(s, m, opts)
}
