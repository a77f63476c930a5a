package cluster_test

import (
	"testing"

	"go.uber.org/goleak"
)

// accessTime is nats-server's access time service (package server/ats):
// one goroutine per process, shared by the stores of every embedded
// server, that runs while any store is registered. It is nats-server's
// own, not a server of ours left running: each is shut down fully
// (Shutdown, then WaitForShutdown, which waits for its goroutines), but
// nats-server does not stop every store it makes. A Raft group whose
// node fails to start (initRaftNode returns ErrNoSysAccount once the
// server is shutting down, as when a node is killed while a table's
// group is made) leaves its memory WAL registered, and the goroutine
// with it, for the rest of the process (see nats-io/nats-server#6829).
var accessTime = goleak.IgnoreTopFunction("github.com/nats-io/nats-server/v2/server/ats.Register.func1")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, accessTime) }
