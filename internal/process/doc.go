// Package process starts and supervises child processes: guest workers and
// the Python runner. It imports the standard library alone; only the node
// imports it.
//
// A child runs in its own process group, so that a stop reaches the
// children it spawned, with a parent-death signal of SIGKILL, so that a
// node killed outright does not leave it behind. When the child itself
// exits, whatever is left of its group is killed: nothing it started
// outlives it.
//
// That is on Linux, where the tests run. macOS and the other Unix systems
// have no parent-death signal (a node killed with SIGKILL leaves its
// children running). Windows has neither process groups nor SIGTERM: Stop
// ends the child at once, and its own children are left running.
package process
