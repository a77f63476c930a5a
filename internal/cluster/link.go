package cluster

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// Link is a switch on an embedded node's connection to its own NATS
// server (Embedded.Link), for tests that cut a node off from its cluster
// without stopping it (clustertest.Cut): cut, the node neither hears nor
// reaches anyone, its server stays routed to the others (the tables keep
// their quorum), and its client reconnects once healed. The zero value
// is a healed link. Safe for concurrent use.
type Link struct {
	mu    sync.Mutex // guards the fields below
	cut   bool
	conns []net.Conn // the connections made while healed
}

// errLinkCut is the dial error of a cut link.
var errLinkCut = errors.New("cluster: link cut")

// linkRetry is the client's reconnect interval on a Link: a healed link
// is used again at once.
const linkRetry = 20 * time.Millisecond

// Cut closes the node's connections to its server and refuses new ones
// until Heal.
func (l *Link) Cut() {
	l.mu.Lock()
	l.cut = true
	conns := l.conns
	l.conns = nil
	l.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// Heal lets the node's client connect again.
func (l *Link) Heal() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = false
}

// linkedServer dials the in-process server through a Link.
type linkedServer struct {
	link *Link
	srv  nats.InProcessConnProvider
}

func (s linkedServer) InProcessConn() (net.Conn, error) {
	s.link.mu.Lock()
	defer s.link.mu.Unlock()
	if s.link.cut {
		return nil, errLinkCut
	}
	c, err := s.srv.InProcessConn()
	if err == nil {
		s.link.conns = append(s.link.conns, c)
	}
	return c, err
}

// inProcess are the client's options to reach the embedded server emb:
// through link when there is one.
func inProcess(emb *embedded, link *Link) []nats.Option {
	if link == nil {
		return []nats.Option{nats.InProcessServer(emb.srv)}
	}
	return []nats.Option{nats.InProcessServer(linkedServer{link, emb.srv}), nats.ReconnectWait(linkRetry)}
}
