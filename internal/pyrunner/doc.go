// Package pyrunner is Junction's Python runner: the program that runs a
// worker's Python class components as a Crossbar.io worker runs them
// (runner.py, embedded as Source), and the node's end of its control
// channel.
//
// The node starts one runner per worker that has Python class components,
// as the interpreter with Args, Source on stdin, the node directory as
// working directory and the runner's end of a Channel as fd 3 (package
// node spawns it with package process; this package spawns nothing). Over
// the channel, JSON lines go both ways (runner.py's header says which):
// the node's calls, answered by id, and the runner's events and log
// lines. Each component's session gets its own socket pair: Channel.Start
// passes one end to the runner with the start call (SCM_RIGHTS), where the
// component speaks WAMP-over-RawSocket as a client, and returns the other
// end, Run.Conn, for the node to serve: a router's gate, or a relay to the
// component's own transport. No other process can reach either end.
//
// The node decides the lifecycles: a Run says when its component is ready
// (its onJoin has returned) or why it failed to start, and when its
// session is over and how (an exception escaped its code, it left).
package pyrunner
