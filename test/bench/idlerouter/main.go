// Command idlerouter is the router process of package bench's idle-memory
// measurements (BenchmarkIdleSessions, TestIdleSessionMemory): a bare
// router (realm1, anonymous) over WebSocket and RawSocket on 127.0.0.1, in
// a process of its own so that its memory is the router's alone, built
// without the race detector whatever the tests run with. It prints its two
// addresses on stdout, answers each line on stdin, and exits when stdin
// is closed:
//
//	gcs    the number of collections so far (without causing one)
//	freed  "ok" after a collection that returned free memory to the OS
//	       (the caller then reads the RSS)
//	stats  goroutines and Go memory figures, after a collection
//	heap F writes a heap profile (as of the last collection) to file F
package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "idlerouter:", err)
		os.Exit(1)
	}
}

func run() error {
	if rate, err := strconv.Atoi(os.Getenv("IDLEROUTER_MEMPROFILERATE")); err == nil {
		runtime.MemProfileRate = rate // for "heap": sample finer than every 512 KiB
	}
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: "realm1"}}})
	if err != nil {
		return err
	}
	defer r.Close()
	h, err := websocket.NewHandler(websocket.Options{Attacher: r})
	if err != nil {
		return err
	}
	wl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer wl.Close()
	go http.Serve(wl, h)
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
	fmt.Printf("%s %s\n", wl.Addr(), rl.Addr())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		fmt.Println(answer(in.Text()))
	}
	return nil
}

func answer(cmd string) string {
	switch cmd {
	case "gcs":
		s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
		metrics.Read(s)
		return fmt.Sprint(s[0].Value.Uint64())
	case "freed":
		debug.FreeOSMemory()
		return "ok"
	}
	if file, ok := strings.CutPrefix(cmd, "heap "); ok {
		return writeHeap(file)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return fmt.Sprintf("goroutines=%d heap_inuse=%d stack_inuse=%d heap_idle=%d heap_released=%d sys=%d",
		runtime.NumGoroutine(), m.HeapInuse, m.StackInuse, m.HeapIdle, m.HeapReleased, m.Sys)
}

// writeHeap writes a heap profile to file, for finding what an idle
// session holds (go tool pprof -sample_index=inuse_space).
func writeHeap(file string) string {
	f, err := os.Create(file)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		return err.Error()
	}
	return "ok"
}
