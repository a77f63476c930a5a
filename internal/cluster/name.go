package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// A node's name is checked twice at start, because nats-server refuses a
// route between two servers of one name (the embedded server's name is
// the node's): the new node's server would then sit apart from the
// holder's and never hear of it.
//
//  1. Before its server starts, the node reads the INFO line each route's
//     server sends on accepting a connection: it names that server.
//  2. Once routed, it reads the routes' INFO lines again: a node of the
//     same name started at the same moment had no server yet at the
//     first read, but has one now (its own read, if later, finds this
//     node's: of two, at least the later fails). It then asks every
//     member it reaches (subject who.<name>) whether a live member has
//     the name: each answers from its own view of the membership, so a
//     holder the new node has no route to is found through the members
//     that hear it.

// routeInfoTimeout bounds the read of one route's INFO line.
const routeInfoTimeout = time.Second

// checkRouteNames returns ErrNameTaken when the server of one of routes,
// other than this node's own (its server ID self; "" before it starts),
// is named name (an unreachable route is no answer).
func checkRouteNames(ctx context.Context, routes []string, name, self string) error {
	var wg sync.WaitGroup
	found := make(chan string, len(routes))
	for _, r := range routes {
		u, err := url.Parse(r)
		if err != nil {
			continue
		}
		wg.Go(func() {
			if srv := routeServer(ctx, u); srv.Name == name && srv.ID != self {
				found <- u.Host
			}
		})
	}
	wg.Wait()
	close(found)
	if host, ok := <-found; ok {
		return fmt.Errorf("%w: %s (the route server at %s)", ErrNameTaken, name, host)
	}
	return nil
}

// serverInfo is what a route server's INFO line says of it.
type serverInfo struct {
	ID   string `json:"server_id"`
	Name string `json:"server_name"`
}

// routeServer reads the INFO line the route server at u sends first (zero
// when there is none).
func routeServer(ctx context.Context, u *url.URL) serverInfo {
	ctx, cancel := context.WithTimeout(ctx, routeInfoTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return serverInfo{}
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	conn.SetReadDeadline(deadline)
	line, err := bufio.NewReaderSize(conn, 4096).ReadString('\n')
	info, ok := strings.CutPrefix(line, "INFO ")
	var v serverInfo
	if err != nil || !ok || json.Unmarshal([]byte(info), &v) != nil {
		return serverInfo{}
	}
	return v
}

// checkName asks the members this node reaches whether a live member has
// its name: every member answers, "" or the holder, naming itself in the
// header whoFrom, and the check ends when each routed server's member has
// (embedded), or after a heartbeat interval (external: the members are
// not known yet). The question is asked again every whoRepeat, since a
// member starting at the same moment may subscribe to it only after it
// was first asked; the check waits at most a lease.
func (n *Node) checkName(ctx context.Context) error {
	wait := n.cfg.Heartbeat
	if n.emb != nil {
		wait = n.cfg.Lease
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	reply := n.nc.NewRespInbox()
	sub, err := n.nc.SubscribeSync(reply)
	if err != nil {
		return fmt.Errorf("cluster: name check: %w", err)
	}
	defer sub.Unsubscribe()
	subject := n.prefix + ".who." + Token(n.cfg.Node)
	question := &nats.Msg{Subject: subject, Reply: reply, Header: nats.Header{whoAsker: []string{n.Self().String()}}}
	ask := func() error { return n.nc.PublishMsg(question) }
	if err := ask(); err != nil {
		return fmt.Errorf("cluster: name check: %w", err)
	}
	answered := map[string]bool{}
	for n.emb == nil || len(answered) < n.emb.remotes() {
		next, cancelNext := context.WithTimeout(ctx, whoRepeat)
		msg, err := sub.NextMsgWithContext(next)
		cancelNext()
		switch {
		case ctx.Err() != nil:
			return nil // every member reached has answered, or none is there
		case errors.Is(err, nats.ErrNoResponders): // no member subscribed yet
			select {
			case <-ctx.Done():
			case <-time.After(whoRepeat):
				ask()
			}
		case err != nil: // no answer within whoRepeat
			ask()
		case len(msg.Data) > 0:
			return fmt.Errorf("%w: %s is %s", ErrNameTaken, n.cfg.Node, msg.Data)
		default:
			answered[msg.Header.Get(whoFrom)] = true
		}
	}
	return nil
}

// whoRepeat is how often checkName asks again; whoFrom is the header of
// an answer that names the member answering, whoAsker that of a question
// that names the member asking (its name and epoch).
const (
	whoRepeat = 50 * time.Millisecond
	whoFrom   = "Junction-Member"
	whoAsker  = "Junction-Asker"
)

// onWho answers a starting node's name check: the live member of that
// name, or nothing. A holder that is the asker itself is nothing: its
// question, asked again every whoRepeat, came after its check had ended
// and its first heartbeat had arrived here.
func (n *Node) onWho(m *nats.Msg) {
	holder := n.whoHolds(m.Subject[strings.LastIndexByte(m.Subject, '.')+1:], m.Header.Get(whoAsker))
	if holder != "" {
		n.log.Error("cluster: a node tried to start with a live member's name", "holder", holder)
	}
	answer := &nats.Msg{Subject: m.Reply, Data: []byte(holder), Header: nats.Header{whoFrom: []string{n.cfg.Node}}}
	m.RespondMsg(answer)
}

// whoHolds returns the live member whose name's token is token, as this
// node knows it ("" for none), unless it is asker (a member's name and
// epoch; "" from a node that does not say).
func (n *Node) whoHolds(token, asker string) string {
	holder := ""
	n.mu.Lock()
	if Token(n.self.Name) == token {
		holder = n.self.String()
	}
	for _, p := range n.peers {
		if p.up && Token(p.member.Name) == token {
			holder = p.member.String()
		}
	}
	n.mu.Unlock()
	if holder == asker {
		return ""
	}
	return holder
}
