// Package process starts and supervises child processes: guest workers and
// the Python runner. It is Linux only and imports the standard library
// alone; only the node imports it.
//
// A child runs in its own process group, so that a stop reaches the
// children it spawned, with a parent-death signal of SIGKILL, so that a
// node killed outright does not leave it behind. When the child itself
// exits, whatever is left of its group is killed: nothing it started
// outlives it.
package process
