package docs

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/node"
	"github.com/junction-wamp/junction/wamp"
)

// TestPythonExample runs python-components.md's example as the page does
// (examples/python: its node directory .crossbar and hello.py beside it)
// under Debian's /usr/bin/python3 with python3-autobahn and
// python3-twisted, and calls its procedures as the page shows.
func TestPythonExample(t *testing.T) {
	n := startPythonProject(t, "python")
	s, err := joinWS(t, "ws://"+n.Listeners()[0].Address+"/ws", client.Config{Realm: "realm1"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Call(testCtx(t), "com.example.add2", wamp.List{2, 3}, nil)
	if sum, _ := wamp.AsInt(firstArg(res)); err != nil || sum != 5 {
		t.Errorf("add2(2, 3) = %v, %v; want 5", res, err)
	}
	res, err = s.Call(testCtx(t), "com.example.greet", wamp.List{"Alice"}, nil)
	if err != nil || firstArg(res) != "Hello, Alice!" {
		t.Errorf("greet(Alice) = %v, %v; want Hello, Alice!", res, err)
	}
	_, err = s.Call(testCtx(t), "com.example.greet", wamp.List{""}, nil)
	if wampErr(err) != "com.example.error.no_name" {
		t.Errorf("greet(\"\") = %v, want com.example.error.no_name", err)
	}
}

// startPythonProject starts the example project examples/dir (its node
// directory .crossbar, its Python modules beside it, "pythonpath":
// [".."]) in a copy, with python3 found as Debian's /usr/bin/python3 (the
// config names no interpreter), on free ports; it stops at the end of the
// test.
func startPythonProject(t *testing.T, dir string) *node.Node {
	t.Helper()
	t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	project := t.TempDir()
	if err := os.CopyFS(project, os.DirFS(filepath.Join("examples", dir))); err != nil {
		t.Fatal(err)
	}
	cbdir := filepath.Join(project, ".crossbar")
	cfg, warns := load(t, filepath.Join(cbdir, "config.json"))
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	rewrite(t, cfg)
	n, err := node.New(cfg, node.Options{Dir: cbdir, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		if err := n.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return n
}

func firstArg(res *client.Result) any {
	if res == nil || len(res.Args) == 0 {
		return nil
	}
	return res.Args[0]
}

// getPage GETs url: the status and the body.
func getPage(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
