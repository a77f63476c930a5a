package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/node"
)

func TestWriteVersion(t *testing.T) {
	tests := []struct {
		name string
		b    node.Build
		want string
	}{
		{"make build", node.Build{Version: "v1.2.3", Commit: "0123abc", CommitTime: "2026-11-27T10:00:00Z",
			Date: "2026-11-28T22:35:17Z", GoVersion: "go1.26.8", Platform: "linux/arm64"},
			"junction v1.2.3\ncommit:   0123abc, committed 2026-11-27T10:00:00Z\nbuilt:    2026-11-28T22:35:17Z\ngo:       go1.26.8\nplatform: linux/arm64\n"},
		{"go build of a modified tree", node.Build{Version: "dev", Commit: "0123abc", Modified: true, GoVersion: "go1.26.8", Platform: "darwin/arm64"},
			"junction dev\ncommit:   0123abc (modified)\nbuilt:    unknown\ngo:       go1.26.8\nplatform: darwin/arm64\n"},
		{"nothing known", node.Build{Version: "dev", GoVersion: "go1.26.8", Platform: "windows/amd64"},
			"junction dev\ncommit:   unknown\nbuilt:    unknown\ngo:       go1.26.8\nplatform: windows/amd64\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			writeVersion(&out, tt.b)
			if out.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", &out, tt.want)
			}
		})
	}
}

func TestVersionCommand(t *testing.T) {
	var want bytes.Buffer
	writeVersion(&want, node.ReadBuild())
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		t.Run(args[0], func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(t.Context(), nil, args, &out, &errOut, noEnv); code != exitOK {
				t.Fatalf("exit %d; stderr %s", code, &errOut)
			}
			if out.String() != want.String() || errOut.Len() != 0 {
				t.Errorf("stdout %q, stderr %q; want stdout %q", &out, &errOut, &want)
			}
			if !strings.Contains(out.String(), "\ngo:       "+runtime.Version()+"\nplatform: "+runtime.GOOS+"/"+runtime.GOARCH+"\n") {
				t.Errorf("stdout %q lacks the Go version and platform", &out)
			}
		})
	}
	for _, args := range [][]string{{"version", "x"}, {"--version", "x"}, {"--version", "--short"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(t.Context(), nil, args, &out, &errOut, noEnv); code != exitUsage || out.Len() != 0 {
				t.Errorf("exit %d, stdout %q; want exit %d and no output", code, &out, exitUsage)
			}
		})
	}
}
