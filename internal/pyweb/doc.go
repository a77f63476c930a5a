// Package pyweb is Junction's Python web server: the program that serves
// one "wsgi", "resource" or "wap" web path as a Crossbar.io router worker
// serves it (pyweb.py, embedded as Source), and the node's ends of the two
// descriptors it gets: a listening Unix socket in a directory only the
// node's user can enter (Socket), where the node's reverse proxy connects,
// and a pipe on which it says once whether it serves (WaitReady).
//
// The node starts one such process per path (package node spawns it with
// package process; this package spawns nothing), as the worker's
// interpreter with Args, Source on stdin, the node directory as working
// directory, the listening socket as fd 3 and the pipe's write end as
// fd 4. No TCP port is opened: no other local user can reach the
// application except through the node's web transport. A "wap" process
// makes its WAMP calls by HTTP on a second socket in the same directory,
// where the node answers them (ListenCalls): it has no router connection
// of its own.
package pyweb
