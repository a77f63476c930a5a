//go:build !linux

package idlepoll

const supported = false

// startLocked fails: parking is built on Linux's epoll only.
func (p *poller) startLocked() error { return ErrUnsupported }

func (p *poller) armLocked(*Spot) error { return ErrUnsupported }

func (p *poller) disarmLocked(s *Spot) { s.armed = false }

func (p *poller) wakeLocked() {}
