package node

import (
	"bytes"
	"encoding/xml"
	"log/slog"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/junction-wamp/junction/internal/config"
)

// Limits of a Flash policy request, Crossbar's: a client has
// flashRequestTimeout to send it, in at most flashRequestMax bytes.
const (
	flashRequestTimeout = 5 * time.Second
	flashRequestMax     = 200
)

// flashRequest is the request Flash sends before a socket connection,
// as Crossbar matches it (leading blanks allowed, the terminating NUL
// not needed).
var flashRequest = regexp.MustCompile(`^\s*<policy-file-request\s*/>`)

// flashServer answers the connections of a "flashpolicy" transport:
// each policy request with the policy, then it closes the connection.
type flashServer struct {
	policy []byte
	log    *slog.Logger
}

// flashPolicy is Crossbar's policy document for domain and ports, ended
// by the NUL that Flash's socket policy protocol asks for.
func flashPolicy(domain string, ports []int) []byte {
	to := "*"
	if len(ports) > 0 {
		s := make([]string, len(ports))
		for i, p := range ports {
			s[i] = strconv.Itoa(p)
		}
		to = strings.Join(s, ",")
	}
	var d bytes.Buffer
	_ = xml.EscapeText(&d, []byte(domain)) // a bytes.Buffer does not fail
	return []byte(`<?xml version="1.0"?><cross-domain-policy><allow-access-from domain="` + d.String() +
		`" to-ports="` + to + `" /></cross-domain-policy>` + "\x00")
}

// serveConn answers one client: the policy for a request, nothing (the
// connection closed) for anything else or for silence.
func (s *flashServer) serveConn(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(flashRequestTimeout))
	buf := make([]byte, 0, flashRequestMax+1)
	for len(buf) <= flashRequestMax {
		n, err := c.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if flashRequest.Match(buf) {
			if _, err := c.Write(s.policy); err != nil {
				s.log.Debug("flashpolicy: answer not sent", "remote", c.RemoteAddr().String(), "err", err)
			}
			return
		}
		if err != nil {
			s.log.Debug("flashpolicy: no policy request", "remote", c.RemoteAddr().String(), "err", err)
			return
		}
	}
	s.log.Debug("flashpolicy: request too long: closed", "remote", c.RemoteAddr().String())
}

// flashPolicyTransport builds a "flashpolicy" transport.
func (b *builder) flashPolicyTransport(path string, t *config.FlashPolicyTransport) (*listenerUnit, error) {
	var errs config.Errors
	spec, err := b.listenSpecOf(t.Endpoint)
	if err != nil {
		errs = append(errs, fieldError(path+".endpoint", err))
	}
	log := b.log.With("transport", path)
	fs := &flashServer{policy: flashPolicy(t.AllowedDomain, t.AllowedPorts), log: log}
	srv := newConnServer("flashpolicy", log, fs.serveConn)
	if t.Endpoint.TLS != nil {
		if srv.tls, err = b.serverTLS(t.Endpoint.TLS).Load(); err != nil {
			errs = append(errs, fieldError(path+".endpoint.tls", err))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	logEndpoint(b.log, path, t.Endpoint)
	l := &listenerUnit{path: path, kind: "flashpolicy", spec: spec, srv: srv, limits: b.limitsOf(path, t.Endpoint)}
	l.services = append(l.services, serviceLog{"flash policy service", []any{"allowed_domain", t.AllowedDomain,
		"allowed_ports", t.AllowedPorts}})
	return l, nil
}
