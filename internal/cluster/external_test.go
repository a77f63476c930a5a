package cluster_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/cluster"
)

// natsServer builds nats-server from the module (the version go.mod
// requires) and runs it with JetStream on a loopback port the OS picks,
// with a user and password; it stops at the end of the test. A build that
// fails fails the test.
func natsServer(t *testing.T) (url, user, password string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "nats-server")
	build := exec.Command("go", "build", "-o", bin, "github.com/nats-io/nats-server/v2")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build nats-server: %v\n%s", err, out)
	}
	user, password = "junction", "s3cret-"+filepath.Base(dir)
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", "-1", "-js", "-sd", filepath.Join(dir, "js"),
		"--user", user, "--pass", password, "--ports_file_dir", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill() // the process this test started, by its PID
		cmd.Wait()
	})
	return waitPortsFile(t, dir, cmd.Process.Pid), user, password
}

// waitPortsFile reads the client URL the server with pid writes into dir
// once it listens.
func waitPortsFile(t *testing.T, dir string, pid int) string {
	t.Helper()
	file := filepath.Join(dir, "nats-server_"+strconv.Itoa(pid)+".ports")
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		b, err := os.ReadFile(file)
		var ports struct{ Nats []string }
		if err == nil && json.Unmarshal(b, &ports) == nil && len(ports.Nats) > 0 {
			return ports.Nats[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("nats-server wrote no ports file %s", file)
		}
	}
	return ""
}

// TestExternalNATS: two nodes on an external nats-server see each other,
// exchange messages and share a bucket; a wrong password fails at start.
func TestExternalNATS(t *testing.T) {
	url, user, password := natsServer(t)
	cfg := func(name, pass string) cluster.Config {
		return cluster.Config{Name: "ext", Node: name, Lease: 2 * time.Second, Heartbeat: 200 * time.Millisecond,
			External: &cluster.External{Servers: []string{url}, User: user, Password: pass}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log := slog.New(slog.DiscardHandler)
	if nd, err := cluster.Start(ctx, cfg("bad", "wrong"), log); err == nil {
		nd.Close()
		t.Fatal("Start with a wrong password succeeded")
	}
	nodes, _ := startConfigs(t, 0, func([]string) []cluster.Config {
		return []cluster.Config{cfg("a", password), cfg("b", password)}
	}, nil)
	got := make(chan string, 1)
	nodes[1].Handle(1, func(from cluster.Member, body []byte) { got <- from.Name + ":" + string(body) })
	if err := nodes[0].Send(nodes[1].Self(), 1, []byte("hi")); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != "a:hi" {
		t.Errorf("got %q", g)
	}
	kv, err := nodes[0].KV(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	kv.Put(ctx, "k", []byte("v"))
	kv2, err := nodes[1].KV(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if e, err := kv2.Get(ctx, "k"); err != nil || string(e.Value()) != "v" {
		t.Errorf("Get: %v %v", e, err)
	}
	if _, err := cluster.Start(ctx, cfg("a", password), log); !errors.Is(err, cluster.ErrNameTaken) {
		t.Errorf("a second node a: %v, want ErrNameTaken", err)
	}
}
