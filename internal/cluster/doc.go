// Package cluster links the nodes of a Junction cluster over NATS: each
// node runs an embedded nats-server routed to the others (or reaches an
// external NATS cluster), announces itself with heartbeats, keeps the live
// membership, exchanges numbered messages with the other members (Send,
// Handle) and opens JetStream key-value buckets (KV) for the cluster's
// tables.
//
// It is the only package of the module that imports NATS (internal/archtest
// holds that rule). Every subject starts with "jx.<cluster>" and every
// bucket with "jx_<cluster>_", so that several clusters can share one NATS.
//
// Identity: a member is name.epoch, the epoch random at every start (and
// at every rejoin after isolation), so that nothing addressed to an
// earlier life of a node reaches the new one.
package cluster
