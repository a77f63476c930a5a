package node

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestLinkedBuild(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	stamped := func(mainVersion string, vcs ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: mainVersion}}
		for i := 0; i+1 < len(vcs); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: vcs[i], Value: vcs[i+1]})
		}
		return bi
	}
	platform := runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name string
		l    linked
		bi   *debug.BuildInfo
		want Build
	}{
		{"no build info", linked{Version: "dev"}, nil,
			Build{Version: "dev", GoVersion: runtime.Version(), Platform: platform}},
		{"make build", linked{"v1.2.3", rev, "2026-11-28T22:35:17Z"},
			stamped("(devel)", "vcs.revision", rev, "vcs.time", "2026-11-27T10:00:00Z", "vcs.modified", "false"),
			Build{Version: "v1.2.3", Commit: rev, CommitTime: "2026-11-27T10:00:00Z", Date: "2026-11-28T22:35:17Z",
				GoVersion: "go1.99.1", Platform: platform}},
		{"linked commit differs from the stamp: no commit time", linked{"v1.2.3", "abc", ""},
			stamped("", "vcs.revision", rev, "vcs.time", "2026-11-27T10:00:00Z"),
			Build{Version: "v1.2.3", Commit: "abc", GoVersion: "go1.99.1", Platform: platform}},
		{"plain go build, modified tree", linked{Version: "dev"},
			stamped("v0.0.0-20261127100000-0123456789ab+dirty", "vcs.revision", rev, "vcs.time", "2026-11-27T10:00:00Z", "vcs.modified", "true"),
			Build{Version: "v0.0.0-20261127100000-0123456789ab+dirty", Commit: rev, Modified: true,
				CommitTime: "2026-11-27T10:00:00Z", GoVersion: "go1.99.1", Platform: platform}},
		{"go install module@version", linked{Version: "dev"}, stamped("v1.4.0"),
			Build{Version: "v1.4.0", GoVersion: "go1.99.1", Platform: platform}},
		{"go run: (devel)", linked{Version: "dev"}, stamped("(devel)"),
			Build{Version: "dev", GoVersion: "go1.99.1", Platform: platform}},
		{"empty linked version", linked{}, stamped(""),
			Build{Version: "dev", GoVersion: "go1.99.1", Platform: platform}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.build(tt.bi); got != tt.want {
				t.Errorf("build:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestReadBuildOfThisBinary(t *testing.T) {
	b := ReadBuild()
	if b.Version != BuildVersion() || b.GoVersion != runtime.Version() || b.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("ReadBuild() = %+v; BuildVersion %q, Go %s", b, BuildVersion(), runtime.Version())
	}
}
