package bench

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// routerChildEnv makes the test binary run as a bare router process, so
// that BenchmarkIdleSessions measures the router's memory alone.
const routerChildEnv = "JUNCTION_BENCH_ROUTER_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(routerChildEnv) == "1" {
		if err := runRouterChild(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runRouterChild serves a router over WebSocket and RawSocket on
// 127.0.0.1, prints the two addresses on stdout, and exits when stdin is
// closed.
func runRouterChild() error {
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: realm}}})
	if err != nil {
		return err
	}
	h, err := websocket.NewHandler(websocket.Options{Attacher: r})
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(l, h)
	rs, err := rawsocket.NewServer(rawsocket.Options{Attacher: r})
	if err != nil {
		return err
	}
	rl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go rs.Serve(rl)
	defer rs.Close()
	fmt.Printf("%s %s\n", l.Addr(), rl.Addr())
	// Each line on stdin asks for the process's memory figures, or with
	// "gcs" for the number of collections so far (without causing one).
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() == "gcs" {
			s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
			metrics.Read(s)
			fmt.Printf("%d\n", s[0].Value.Uint64())
			continue
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Printf("goroutines=%d heap_inuse=%d stack_inuse=%d heap_idle=%d heap_released=%d sys=%d\n",
			runtime.NumGoroutine(), m.HeapInuse, m.StackInuse, m.HeapIdle, m.HeapReleased, m.Sys)
	}
	r.Close()
	return l.Close()
}
