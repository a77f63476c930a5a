// Package epoll is what an event loop needs of Linux (epoll(7)): an epoll
// instance with a wake-up pipe that another goroutine can poke, and
// sockets taken out of Go's netpoller as nonblocking descriptors, and
// back. Level-triggered: an event is reported for as long as it holds.
// The web transport's "loop" engine runs on it. Linux only: elsewhere
// New fails with errors.ErrUnsupported.
package epoll
