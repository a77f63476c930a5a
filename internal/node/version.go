package node

import "runtime/debug"

// Version is the node's version. Release builds set it with
//
//	go build -ldflags "-X github.com/junction-wamp/junction/internal/node.Version=v1.2.3"
//
// Otherwise it is "dev"; see BuildVersion.
var Version = "dev"

// BuildVersion returns Version, or when it was not set at build time, the
// main module's version recorded by the go command (for "go install
// module@version" builds), or "dev".
func BuildVersion() string {
	if Version != "dev" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return Version
}
