package epoll

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

// The events of Add and Mod, and those Wait reports (Hup and Err are
// reported whether asked or not).
const (
	In    = syscall.EPOLLIN
	Out   = syscall.EPOLLOUT
	RDHup = syscall.EPOLLRDHUP // the peer closed its writing side
	Hup   = syscall.EPOLLHUP
	Err   = syscall.EPOLLERR
)

// Event is one event Wait reports: Events, and the descriptor and tag
// it was added with (FD and Tag).
type Event = syscall.EpollEvent

// FD and Tag are the descriptor and tag of an event.
func FD(e *Event) int    { return int(e.Fd) }
func Tag(e *Event) int32 { return e.Pad }

// Poller is an epoll instance and its wake-up pipe. Its methods but Wake
// are for the one goroutine that runs the loop; Wake is safe from any.
type Poller struct {
	fd   int
	wake [2]int // a pipe whose read end is in the instance
}

// New makes a Poller.
func New() (*Poller, error) {
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll: epoll_create1: %w", err)
	}
	p := &Poller{fd: ep}
	if err := syscall.Pipe2(p.wake[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		syscall.Close(ep)
		return nil, fmt.Errorf("epoll: pipe2: %w", err)
	}
	ev := Event{Events: In, Fd: int32(p.wake[0]), Pad: -1}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, p.wake[0], &ev); err != nil {
		p.Close()
		return nil, fmt.Errorf("epoll: epoll_ctl: %w", err)
	}
	return p, nil
}

// Close closes the instance and the pipe.
func (p *Poller) Close() {
	syscall.Close(p.fd)
	syscall.Close(p.wake[0])
	syscall.Close(p.wake[1])
}

// Add watches fd for events, reported with tag.
func (p *Poller) Add(fd int, events uint32, tag int32) error {
	return p.ctl(syscall.EPOLL_CTL_ADD, fd, events, tag)
}

// Mod changes what fd is watched for.
func (p *Poller) Mod(fd int, events uint32, tag int32) error {
	return p.ctl(syscall.EPOLL_CTL_MOD, fd, events, tag)
}

// Del stops watching fd.
func (p *Poller) Del(fd int) error {
	return p.ctl(syscall.EPOLL_CTL_DEL, fd, 0, 0)
}

func (p *Poller) ctl(op, fd int, events uint32, tag int32) error {
	ev := Event{Events: events, Fd: int32(fd), Pad: tag}
	if err := syscall.EpollCtl(p.fd, op, fd, &ev); err != nil {
		return fmt.Errorf("epoll: epoll_ctl: %w", err)
	}
	return nil
}

// Wait waits up to msec milliseconds (-1: no bound) for events and
// returns how many it put in events, and whether Wake was called since
// the last Wait (its event is not among them). An interrupted wait
// returns no event.
func (p *Poller) Wait(events []Event, msec int) (n int, woken bool, err error) {
	n, err = syscall.EpollWait(p.fd, events, msec)
	if errors.Is(err, syscall.EINTR) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("epoll: epoll_wait: %w", err)
	}
	for i := 0; i < n; i++ {
		if int(events[i].Fd) == p.wake[0] && events[i].Pad == -1 {
			p.drain()
			events[i] = events[n-1]
			return n - 1, true, nil
		}
	}
	return n, false, nil
}

// drain empties the wake-up pipe.
func (p *Poller) drain() {
	var buf [64]byte
	for {
		if n, err := syscall.Read(p.wake[0], buf[:]); n <= 0 || err != nil {
			return
		}
	}
}

// Wake makes the loop's Wait (current or next) return. A full pipe
// means a wake-up is pending already.
func (p *Poller) Wake() {
	_, _ = syscall.Write(p.wake[1], []byte{1})
}

// Take returns a nonblocking duplicate of c's socket descriptor, which
// the caller owns (c stays open: the caller closes it, which leaves the
// duplicate open and out of Go's netpoller). It fails with
// errors.ErrUnsupported for a connection without one.
func Take(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1, fmt.Errorf("epoll: %T has no descriptor: %w", c, errors.ErrUnsupported)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	var derr error
	if err := raw.Control(func(s uintptr) {
		fd, derr = dupCloexec(int(s))
	}); err != nil {
		return -1, err
	}
	if derr != nil {
		return -1, derr
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return -1, fmt.Errorf("epoll: set nonblocking: %w", err)
	}
	return fd, nil
}

// dupCloexec is fcntl(fd, F_DUPFD_CLOEXEC, 0).
func dupCloexec(fd int) (int, error) {
	nfd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, fmt.Errorf("epoll: dup: %w", errno)
	}
	return int(nfd), nil
}

// Conn makes a net.Conn of the socket fd, in Go's netpoller again, and
// closes fd (the connection has a descriptor of its own).
func Conn(fd int) (net.Conn, error) {
	f := os.NewFile(uintptr(fd), "socket")
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	return c, nil
}

// Read reads from the nonblocking fd: syscall.EAGAIN when nothing is
// there, (0, nil) at the end of the stream.
func Read(fd int, p []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, p)
		if err == syscall.EINTR {
			continue
		}
		if n < 0 {
			n = 0
		}
		return n, err
	}
}

// Write writes to the nonblocking fd what it takes now: syscall.EAGAIN
// when it takes nothing.
func Write(fd int, p []byte) (int, error) {
	for {
		n, err := syscall.Write(fd, p)
		if err == syscall.EINTR {
			continue
		}
		if n < 0 {
			n = 0
		}
		return n, err
	}
}

// Close closes fd.
func Close(fd int) { _ = syscall.Close(fd) }
