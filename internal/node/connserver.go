package node

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"
)

// acceptPause is how long a connServer waits after a failed accept.
const acceptPause = 100 * time.Millisecond

// connServer is the server of a listener whose connections are served
// one by one, not over HTTP (flashpolicy, websocket-testee): each
// connection on its own goroutine, by handle, which need not close it.
// Safe for concurrent use.
type connServer struct {
	name   string      // for the log: "flashpolicy"
	tls    *tls.Config // nil for plain TCP or Unix
	log    *slog.Logger
	handle func(net.Conn)

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// newConnServer returns the server of name handling each connection
// with handle.
func newConnServer(name string, log *slog.Logger, handle func(net.Conn)) *connServer {
	return &connServer{name: name, log: log, handle: handle, conns: map[net.Conn]struct{}{}}
}

func (s *connServer) Serve(l net.Listener) error {
	if s.tls != nil {
		l = tls.NewListener(l, s.tls)
	}
	for {
		c, err := l.Accept()
		if errors.Is(err, net.ErrClosed) {
			return err // shutdown: a clean end for the node
		}
		if err != nil { // out of descriptors and the like: wait for some to free
			s.log.Warn(s.name+": accept failed, retrying", "err", err)
			time.Sleep(acceptPause)
			continue
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serveConn(c)
	}
}

// serveConn runs handle on c, then closes c.
func (s *connServer) serveConn(c net.Conn) {
	defer func() {
		c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.wg.Done()
	}()
	s.handle(c)
}

// shutdown closes the listener; the connections being served go on.
func (*connServer) shutdown(_ context.Context, l net.Listener) error {
	if err := l.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// close closes the connections left and waits for their goroutines.
func (s *connServer) close() error {
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}
