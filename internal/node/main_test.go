package node

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines. JUNCTION_TEST_HTTP_ENGINE
// ("junction", "stdlib" or "loop") runs the web servers of configs that
// name no "http_engine" on that engine: the node's web-facing tests
// (bridge services, proxies, dashboard, WebSocket) on any engine.
func TestMain(m *testing.M) {
	testHTTPEngine = os.Getenv("JUNCTION_TEST_HTTP_ENGINE")
	goleak.VerifyTestMain(m, accessTime)
}

// accessTime is nats-server's access time goroutine (server/ats), which
// a store nats-server makes and never stops keeps running for the rest
// of the process: nats-server's own, not an embedded server of ours left
// running (see internal/cluster/main_test.go).
var accessTime = goleak.IgnoreTopFunction("github.com/nats-io/nats-server/v2/server/ats.Register.func1")
