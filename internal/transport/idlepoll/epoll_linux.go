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

// startLocked creates the epoll instance and its wake pipe once, and
// starts the goroutine if it is not running.
func (p *poller) startLocked() error {
	if p.ep == 0 && p.err == nil {
		p.err = p.create()
	}
	if p.err != nil {
		return p.err
	}
	if !p.running {
		p.running = true
		go p.wait()
	}
	return nil
}

// create makes the epoll instance and the wake pipe, its read end watched.
func (p *poller) create() error {
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("idlepoll: epoll_create1: %w", err)
	}
	if err := syscall.Pipe2(p.wake[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		syscall.Close(ep)
		return fmt.Errorf("idlepoll: pipe2: %w", err)
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(p.wake[0])}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, p.wake[0], &ev); err != nil {
		syscall.Close(ep)
		syscall.Close(p.wake[0])
		syscall.Close(p.wake[1])
		return fmt.Errorf("idlepoll: epoll_ctl: %w", err)
	}
	p.ep = ep
	return nil
}

// wakeLocked wakes the goroutine, to see whether any Spot is left.
func (p *poller) wakeLocked() {
	if p.running {
		syscall.Write(p.wake[1], []byte{0})
	}
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
// an event, and ends once none is parked (the last unpark wakes it).
func (p *poller) wait() {
	var evs [128]syscall.EpollEvent
	var drain [64]byte
	for {
		n, err := syscall.EpollWait(p.ep, evs[:], -1)
		for _, ev := range evs[:max(n, 0)] {
			if ev.Fd == int32(p.wake[0]) {
				syscall.Read(p.wake[0], drain[:])
				continue
			}
			p.ready(ev.Fd)
		}
		if err != nil && err != syscall.EINTR {
			p.fail(fmt.Errorf("idlepoll: epoll_wait: %w", err))
			return
		}
		if p.idle() {
			return
		}
	}
}

// idle reports whether no Spot is parked, and then marks the goroutine
// stopped.
func (p *poller) idle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.spots) > 0 {
		return false
	}
	p.running = false
	return true
}

// fail stops parking for good after an error of the epoll instance (which
// only a bug causes): every parked Spot resumes, and later Parks fail with
// err, so that their sessions keep their goroutines.
func (p *poller) fail(err error) {
	p.mu.Lock()
	p.err, p.running = err, false
	var resumes []func()
	for _, s := range p.spots {
		resumes = append(resumes, p.takeLocked(s))
	}
	p.mu.Unlock()
	for _, resume := range resumes {
		go resume()
	}
}
