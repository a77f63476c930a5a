package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// embedded is a running embedded nats-server and what the node's client
// needs to reach it.
type embedded struct {
	srv            *server.Server
	user, password string // of the client port, made at this start
	storeDir       string // JetStream's (its Raft logs), removed at shutdown
	routes         int    // other nodes configured (routes to itself left out)
}

// readyTimeout bounds the wait for the embedded server's listeners.
const readyTimeout = 10 * time.Second

// startEmbedded starts the server of cfg and waits until it listens, or
// returns why it cannot (the route port taken, say).
func startEmbedded(cfg Config, log *slog.Logger) (*embedded, error) {
	e := &embedded{user: "jx-" + randomHex(8), password: randomHex(24)}
	opts, err := e.options(cfg)
	if err != nil {
		return nil, err
	}
	if e.storeDir, err = os.MkdirTemp("", "junction-nats-"); err != nil {
		return nil, fmt.Errorf("cluster: JetStream directory: %w", err)
	}
	opts.StoreDir = e.storeDir
	srv, err := server.NewServer(opts)
	if err != nil {
		os.RemoveAll(e.storeDir)
		return nil, fmt.Errorf("cluster: nats server: %w", err)
	}
	logger := &serverLog{log: log.With("nats", "server"), fatal: make(chan string, 1)}
	srv.SetLoggerV2(logger, false, false, false)
	e.srv = srv
	go srv.Start()
	if err := e.waitReady(logger.fatal); err != nil {
		e.shutdown()
		return nil, err
	}
	e.routes = countOtherRoutes(opts.Routes, srv.ClusterAddr())
	return e, nil
}

// options are the nats-server options of cfg.
func (e *embedded) options(cfg Config) (*server.Options, error) {
	emb := cfg.Embedded
	opts := &server.Options{
		ServerName: Token(cfg.Node),
		Host:       "127.0.0.1",
		Port:       server.RANDOM_PORT,
		Users:      []*server.User{{Username: e.user, Password: e.password}},
		JetStream:  true,
		NoSigs:     true,
		NoLog:      false,
		// The cluster's traffic stays in the nodes: no HTTP monitoring,
		// no leaf nodes, no gateways.
	}
	if emb.Listen == "" {
		return opts, nil
	}
	host, port, err := net.SplitHostPort(emb.Listen)
	if err != nil {
		return nil, fmt.Errorf("cluster: embedded listen %q: %w", emb.Listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return nil, fmt.Errorf("cluster: embedded listen %q: bad port", emb.Listen)
	}
	if p == 0 {
		p = server.RANDOM_PORT
	}
	opts.Cluster = server.ClusterOpts{
		Name: "jx_" + cfg.Name, Host: host, Port: p,
		Username: emb.RouteUser, Password: emb.RoutePassword,
		TLSConfig: emb.TLS, TLSTimeout: 2,
	}
	for _, r := range emb.Routes {
		u, err := routeURL(r)
		if err != nil {
			return nil, err
		}
		if u.User == nil && emb.RouteUser != "" {
			u.User = url.UserPassword(emb.RouteUser, emb.RoutePassword)
		}
		opts.Routes = append(opts.Routes, u)
	}
	return opts, nil
}

// waitReady waits until the server listens, or it logs a fatal error.
func (e *embedded) waitReady(fatal <-chan string) error {
	deadline := time.Now().Add(readyTimeout)
	for !e.srv.ReadyForConnections(50 * time.Millisecond) {
		select {
		case msg := <-fatal:
			return fmt.Errorf("cluster: nats server: %s", msg)
		default:
		}
		if time.Now().After(deadline) {
			return errors.New("cluster: nats server not ready in time")
		}
	}
	return nil
}

// shutdown stops the server and removes its directory.
func (e *embedded) shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
	os.RemoveAll(e.storeDir)
}

// clientURL is the address of the loopback client port.
func (e *embedded) clientURL() string { return e.srv.ClientURL() }

// countOtherRoutes counts the routes that lead to another node: a route
// to this node's own route port (a node may list itself) is left out.
func countOtherRoutes(routes []*url.URL, self *net.TCPAddr) int {
	n := 0
	for _, u := range routes {
		if self == nil || !isSelf(u, self.Port) {
			n++
		}
	}
	return n
}

// isSelf reports whether route u names port on this host.
func isSelf(u *url.URL, port int) bool {
	host, p, err := net.SplitHostPort(u.Host)
	if err != nil || p != strconv.Itoa(port) {
		return false
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return false
	}
	local, _ := net.InterfaceAddrs()
	for _, ip := range ips {
		if ip.IsLoopback() || ip.IsUnspecified() {
			return true
		}
		for _, a := range local {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return true
			}
		}
	}
	return false
}

// remotes counts the other servers this one has a route to.
func (e *embedded) remotes() int {
	rz, err := e.srv.Routez(nil)
	if err != nil {
		return 0
	}
	ids := map[string]bool{}
	for _, r := range rz.Routes {
		ids[r.RemoteID] = true
	}
	return len(ids)
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// serverLog passes the embedded server's warnings and errors to the
// node's logger; the first fatal error also goes to fatal, which Start
// waits on (the server does not exit on it). Its notices are debug, and
// so are the lines that only repeat what the membership says better
// (a route to a node that is down, retried every second).
type serverLog struct {
	log   *slog.Logger
	fatal chan string
}

func (l *serverLog) Noticef(format string, v ...any) { l.log.Debug(fmt.Sprintf(format, v...)) }
func (l *serverLog) Debugf(string, ...any)           {}
func (l *serverLog) Tracef(string, ...any)           {}

func (l *serverLog) Warnf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if strings.HasPrefix(msg, "Plaintext passwords detected") {
		return // the client port's per-start password, never written out
	}
	l.log.Warn(msg)
}

func (l *serverLog) Errorf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if peerGone(msg) {
		l.log.Debug(msg) // a node down or leaving: the membership reports it
		return
	}
	l.log.Error(msg)
}

// peerGone reports whether a server error only says that another node's
// server went away: a route that cannot connect, or a write to or read
// from a connection its peer closed, as when a node stops.
func peerGone(msg string) bool {
	for _, s := range []string{"Error trying to connect to route", "broken pipe", "connection reset by peer"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func (l *serverLog) Fatalf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	l.log.Error(msg)
	select {
	case l.fatal <- msg:
	default:
	}
}
