package client

import "sync"

// mailbox is a FIFO queue between one producer that must never block (the
// reader) and one consumer. Safe for concurrent use.
type mailbox[T any] struct {
	ready chan struct{} // capacity 1: signalled after a push
	limit int           // most items held; 0 means no limit

	mu    sync.Mutex
	items []T
	spare []T // the consumer's last batch, reused
}

func newMailbox[T any](limit int) *mailbox[T] {
	return &mailbox[T]{ready: make(chan struct{}, 1), limit: limit}
}

// push appends v; it returns false, and keeps nothing, when the mailbox is
// full.
func (m *mailbox[T]) push(v T) bool {
	m.mu.Lock()
	if m.limit > 0 && len(m.items) >= m.limit {
		m.mu.Unlock()
		return false
	}
	m.items = append(m.items, v)
	m.mu.Unlock()
	select {
	case m.ready <- struct{}{}:
	default:
	}
	return true
}

// take returns every item pushed so far, oldest first. The batch is valid
// until the next call to take.
func (m *mailbox[T]) take() []T {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.spare)
	batch := m.items
	m.items = m.spare[:0]
	m.spare = batch
	return batch
}
