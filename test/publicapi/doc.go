// Package publicapi is a module outside Junction's that uses it as a
// library, as a Go program does: it imports only the public packages
// (junction, client, wamp), which the Go toolchain enforces (a module
// cannot import another's internal packages). Its tests run an embedded
// router with clients against it; readme and library are the programs
// the README and docs/library.md show, run as examples.
package publicapi
