package mqtt

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("mqtt: server closed")

// acceptDelay is the pause after a failed Accept (out of descriptors).
const acceptDelay = 50 * time.Millisecond

// Server accepts MQTT connections on listeners and serves each with a
// Handler. Safe for concurrent use.
type Server struct {
	h *Handler

	mu        sync.Mutex // guards the fields below
	listeners map[net.Listener]struct{}
	conns     map[net.Conn]struct{}
	closed    bool

	wg sync.WaitGroup // connection goroutines
}

// NewServer returns a Server serving connections with h.
func NewServer(h *Handler) *Server {
	return &Server{h: h, listeners: map[net.Listener]struct{}{}, conns: map[net.Conn]struct{}{}}
}

// Serve accepts connections on l until Close (ErrServerClosed) or until l
// is closed otherwise (an error wrapping net.ErrClosed). Other accept
// errors are retried after a pause.
func (s *Server) Serve(l net.Listener) error {
	if !s.track(func() { s.listeners[l] = struct{}{} }) {
		return ErrServerClosed
	}
	for {
		conn, err := l.Accept()
		switch {
		case err == nil:
		case s.isClosed():
			return ErrServerClosed
		case errors.Is(err, net.ErrClosed):
			return fmt.Errorf("mqtt: accept: %w", err)
		default:
			s.h.log.Warn("mqtt: accept failed, retrying", "err", err)
			time.Sleep(acceptDelay)
			continue
		}
		if !s.track(func() { s.conns[conn] = struct{}{}; s.wg.Add(1) }) {
			conn.Close()
			return ErrServerClosed
		}
		go s.serve(conn)
	}
}

func (s *Server) serve(conn net.Conn) {
	defer s.wg.Done()
	s.h.ServeConn(conn)
	s.mu.Lock()
	delete(s.conns, conn)
	s.mu.Unlock()
}

// track runs add under the lock unless the server is closed.
func (s *Server) track(add func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	add()
	return true
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close closes every listener and connection and waits for the sessions
// to end.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for l := range s.listeners {
		l.Close()
	}
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}
