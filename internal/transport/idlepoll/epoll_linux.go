package idlepoll

import (
	"fmt"
	"syscall"
)

// events: readable, or hung up (EPOLLRDHUP: the peer closed its side;
// EPOLLHUP and EPOLLERR are always reported); one-shot, so that an event
// disarms the socket until it is parked again (EPOLL_CTL_MOD re-arms it,
// and reports data that arrived meanwhile).
const supported = true

const events = syscall.EPOLLIN | syscall.EPOLLRDHUP | syscall.EPOLLONESHOT

// startLocked creates the epoll instance and its goroutine once.
func (p *poller) startLocked() error {
	if p.ep != 0 || p.err != nil {
		return p.err
	}
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		p.err = fmt.Errorf("idlepoll: epoll_create1: %w", err)
		return p.err
	}
	p.ep = ep
	go p.wait()
	return nil
}

// armLocked watches s's descriptor for one event.
func (p *poller) armLocked(s *Spot) error {
	ev := syscall.EpollEvent{Events: events, Fd: s.fd}
	op := syscall.EPOLL_CTL_MOD
	if !s.armed {
		op = syscall.EPOLL_CTL_ADD
	}
	if err := syscall.EpollCtl(p.ep, op, int(s.fd), &ev); err != nil {
		return fmt.Errorf("idlepoll: epoll_ctl: %w", err)
	}
	s.armed = true
	return nil
}

// disarmLocked stops watching s's descriptor (before it is closed).
func (p *poller) disarmLocked(s *Spot) {
	syscall.EpollCtl(p.ep, syscall.EPOLL_CTL_DEL, int(s.fd), nil)
	s.armed = false
}

// wait is the poller's goroutine: it resumes the Spots whose sockets have
// an event, for the life of the process (parked connections may come at
// any time; idle, it costs one goroutine blocked in epoll_wait).
func (p *poller) wait() {
	var evs [128]syscall.EpollEvent
	for {
		n, err := syscall.EpollWait(p.ep, evs[:], -1)
		if err != nil {
			continue // EINTR; the instance itself never goes away
		}
		for _, ev := range evs[:n] {
			p.ready(ev.Fd)
		}
	}
}
