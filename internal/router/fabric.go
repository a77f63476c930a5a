package router

import "github.com/junction-wamp/junction/wamp"

// Fabric links a router's realms to the other nodes of a cluster (package
// cluster implements it). A nil Fabric is one node.
type Fabric interface {
	// Realm links a realm as it starts. It returns nil to keep the realm
	// on this node (RealmOptions.Local).
	Realm(name wamp.URI, link *RealmLink) RealmFabric
}

// RealmLink is what the cluster calls on one realm (methods in
// fabric_pubsub.go and fabric_rpc.go). Safe for concurrent use.
type RealmLink struct{ rm *realm }

// RealmFabric is a realm's side of the cluster: what the realm tells the
// other nodes. Close is called once, when the realm closes.
type RealmFabric interface {
	CallFabric
	EventFabric
	Close()
}
