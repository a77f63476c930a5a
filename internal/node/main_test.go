package node

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines. JUNCTION_TEST_HTTP_ENGINE
// ("junction" or "stdlib") runs the web servers of configs that name no
// "http_engine" on that engine: the node's web-facing tests (bridge
// services, proxies, dashboard, WebSocket) on either engine.
func TestMain(m *testing.M) {
	testHTTPEngine = os.Getenv("JUNCTION_TEST_HTTP_ENGINE")
	goleak.VerifyTestMain(m)
}
