package node

import (
	"runtime"
	"runtime/debug"
)

// What the linker sets in a release build; "make build" sets all three:
//
//	go build -ldflags "-X github.com/junction-wamp/junction/internal/node.Version=v1.2.3
//	  -X github.com/junction-wamp/junction/internal/node.Commit=0123abc...
//	  -X github.com/junction-wamp/junction/internal/node.Date=2026-11-28T22:35:17Z"
//
// Left unset, Version is "dev" and Commit and Date are empty; see
// BuildVersion and ReadBuild for what is used instead.
var (
	Version = "dev"
	Commit  = ""
	Date    = ""
)

// Build describes the running binary.
type Build struct {
	Version    string // BuildVersion
	Commit     string // the VCS revision: Commit, else vcs.revision; "" when unknown
	Modified   bool   // the tree had uncommitted changes (vcs.modified); only known without Commit
	CommitTime string // vcs.time (RFC 3339); "" when unknown
	Date       string // the build date: Date; "" when not set at build time
	GoVersion  string // the Go release that built it, e.g. "go1.26.8"
	Platform   string // GOOS/GOARCH, e.g. "linux/amd64"
}

// ReadBuild returns the running binary's Build: what the linker set, else
// what the go command recorded (module version and VCS stamp, present when
// the binary was built inside its git checkout).
func ReadBuild() Build {
	bi, _ := debug.ReadBuildInfo()
	return linked{Version, Commit, Date}.build(bi)
}

// BuildVersion returns Version, or when it was not set at build time, the
// main module's version recorded by the go command (a "go install
// module@version" build, or a pseudo-version from the VCS tag or commit
// for a plain "go build"), or "dev".
func BuildVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return linked{Version: Version}.version(bi)
}

// linked holds the values the linker may set.
type linked struct {
	Version, Commit, Date string
}

// build is ReadBuild on the given build info (nil when there is none).
func (l linked) build(bi *debug.BuildInfo) Build {
	b := Build{
		Version:   l.version(bi),
		Commit:    l.Commit,
		Date:      l.Date,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
	if bi == nil {
		return b
	}
	if bi.GoVersion != "" {
		b.GoVersion = bi.GoVersion
	}
	vcs := settings(bi, "vcs.revision", "vcs.time", "vcs.modified")
	if b.Commit == "" {
		b.Commit, b.Modified = vcs["vcs.revision"], vcs["vcs.modified"] == "true"
	}
	if b.Commit == vcs["vcs.revision"] {
		b.CommitTime = vcs["vcs.time"]
	}
	return b
}

// version is BuildVersion on the given build info (nil when there is none).
func (l linked) version(bi *debug.BuildInfo) string {
	if l.Version != "dev" && l.Version != "" {
		return l.Version
	}
	if bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// settings returns the build settings of bi with the given keys.
func settings(bi *debug.BuildInfo, keys ...string) map[string]string {
	m := make(map[string]string, len(keys))
	for _, s := range bi.Settings {
		for _, k := range keys {
			if s.Key == k {
				m[k] = s.Value
			}
		}
	}
	return m
}
