package docs

import (
	"testing"

	"go.uber.org/goleak"
)

// accessTime is nats-server's access time goroutine (server/ats), which
// a store nats-server makes and never stops keeps running for the rest
// of the process: nats-server's own, not an embedded server of ours left
// running (see internal/cluster/main_test.go).
var accessTime = goleak.IgnoreTopFunction("github.com/nats-io/nats-server/v2/server/ats.Register.func1")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, accessTime) }
