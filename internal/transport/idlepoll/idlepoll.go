// Package idlepoll lets an idle connection wait for its next message
// without a goroutine. A goroutine parked in a read holds its stack (4 KiB
// for a WAMP session's reader) for as long as the connection is idle; a
// Spot parked here holds a few words. On Linux one epoll instance per
// process watches the parked sockets (one-shot: an event disarms the
// socket until it is parked again), and when one is readable, hung up or
// being closed its resume function runs on a new goroutine, which reads
// as usual (through the connection, on Go's own poller) and parks again
// once the connection has gone idle. Elsewhere Park always fails and the
// caller keeps its goroutine.
//
// A parked socket must be unparked (Conn.Close does it) before it is
// closed: closing it removes it from epoll silently and its resume
// function would never run. The poller's goroutine runs only while some
// connection is parked.
package idlepoll

import (
	"errors"
	"net"
	"sync"
	"syscall"
)

// ErrUnsupported: the connection cannot be parked (not a plain socket, or
// not on Linux).
var ErrUnsupported = errors.New("idlepoll: connection cannot park")

// ErrClosed: the Spot was unparked for good (its connection is closing).
var ErrClosed = errors.New("idlepoll: connection closing")

// Spot is a connection's place in the poller. The zero value is ready.
// Its methods are safe for concurrent use.
type Spot struct {
	// Guarded by the poller's mutex. (The small fields side by side: a
	// Conn fits 32 bytes.)
	fd     int32
	state  spotState
	armed  bool   // registered with epoll (disarmed or not)
	resume func() // while parked
}

type spotState uint8

const (
	running spotState = iota // someone reads (or will): not parked
	parked                   // waiting in epoll for resume
	closed                   // unparked for good: Park fails
)

// Conn is a connection that can park: Close unparks it for good before
// closing the socket. SyscallConn is the wrapped connection's.
type Conn struct {
	net.Conn
	spot Spot
}

// Wrap returns c as a Conn.
func Wrap(c net.Conn) *Conn { return &Conn{Conn: c} }

// Park arranges for resume to run on a new goroutine once the connection
// is readable, hung up, or being closed; the caller must not read until
// then. It fails with ErrUnsupported (not a plain socket, not Linux) or
// ErrClosed (Close was called): the caller then reads as usual.
func (c *Conn) Park(resume func()) error {
	fd, err := socketFD(c.Conn)
	if err != nil {
		return err
	}
	return poll.park(&c.spot, fd, resume)
}

// Close unparks the connection for good (its resume function runs if it
// was parked, and later Parks fail), then closes it.
func (c *Conn) Close() error {
	poll.unpark(&c.spot)
	return c.Conn.Close()
}

// SyscallConn gives the wrapped connection's raw socket (for the outbox's
// writes that never wait), or ErrUnsupported.
func (c *Conn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, ErrUnsupported
}

// NetConn returns the wrapped connection.
func (c *Conn) NetConn() net.Conn { return c.Conn }

// socketFD returns the descriptor of c's socket, if it is a plain one.
func socketFD(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1, ErrUnsupported
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, ErrUnsupported
	}
	fd := -1
	if err := raw.Control(func(s uintptr) { fd = int(s) }); err != nil {
		return -1, ErrClosed
	}
	return fd, nil
}

// poller is the process's one poller; started on first use.
var poll = &poller{spots: map[int32]*Spot{}}

// poller watches parked Spots. Its goroutine runs while any is parked.
type poller struct {
	mu      sync.Mutex // guards the fields below and every Spot's fields
	ep      int        // the epoll instance; 0 before start
	wake    [2]int     // a pipe whose read end is in ep: wakes the goroutine
	err     error      // why it could not start
	running bool       // the goroutine runs (or is about to)
	spots   map[int32]*Spot
}

// park registers s for fd and resume.
func (p *poller) park(s *Spot, fd int, resume func()) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.state == closed {
		return ErrClosed
	}
	if err := p.startLocked(); err != nil {
		return err
	}
	s.fd, s.resume, s.state = int32(fd), resume, parked
	p.spots[s.fd] = s
	if err := p.armLocked(s); err != nil {
		delete(p.spots, s.fd)
		s.resume, s.state = nil, running
		return err
	}
	return nil
}

// unpark closes s for good, resuming it if it was parked.
func (p *poller) unpark(s *Spot) {
	p.mu.Lock()
	resume := p.takeLocked(s)
	if s.armed {
		p.disarmLocked(s)
	}
	s.state = closed
	if resume != nil && len(p.spots) == 0 {
		p.wakeLocked() // the last one: the goroutine ends
	}
	p.mu.Unlock()
	if resume != nil {
		go resume()
	}
}

// ready resumes the Spot parked on fd, if any: an event arrived.
func (p *poller) ready(fd int32) {
	p.mu.Lock()
	var resume func()
	if s := p.spots[fd]; s != nil {
		resume = p.takeLocked(s)
	}
	p.mu.Unlock()
	if resume != nil {
		go resume()
	}
}

// takeLocked marks a parked s running and returns its resume function;
// nil if s was not parked.
func (p *poller) takeLocked(s *Spot) func() {
	if s.state != parked {
		return nil
	}
	delete(p.spots, s.fd)
	resume := s.resume
	s.resume, s.state = nil, running
	return resume
}

// Parkable reports whether c can park: a plain socket, on Linux.
func Parkable(c net.Conn) bool {
	if !supported {
		return false
	}
	_, err := socketFD(c)
	return err == nil
}
