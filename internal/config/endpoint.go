package config

import (
	"net"
	"time"
)

// ListenEndpoint is a listening transport's "endpoint".
type ListenEndpoint struct {
	// Type is "type": "tcp" or "unix" (required).
	Type string

	// Port is "port" (tcp, required): 0..65535, 0 meaning any free port.
	// May be "${NAME}" or Crossbar's "$NAME" to read an environment
	// variable.
	Port int
	// Interface is "interface" (tcp): the IP address to listen on (default
	// "" meaning all interfaces).
	Interface string
	// Backlog is "backlog": the listen queue length, 1..65535
	// (default 50). Checked, then accepted without a warning but without
	// effect: Go always asks for the system's maximum backlog
	// (net.core.somaxconn on Linux, 4096 on recent kernels). No warning,
	// because Crossbar's own template sets it (1024) and a longer queue
	// is harmless; package node logs it at debug level.
	Backlog int
	// Version is "version" (tcp): 4 or 6, the IP version (default 4). With
	// an empty Interface, 6 listens on both.
	Version int
	// Shared is "shared" (tcp): SO_REUSEPORT, so that other processes may
	// listen on the same port (default false). Not applied: true is ignored
	// with a warning. Two transports of one node on the same port are an
	// error, shared or not.
	Shared bool
	// UserTimeout is "user_timeout" (tcp, milliseconds): TCP_USER_TIMEOUT
	// (default 0 meaning the system's). Not applied: other than 0 is
	// ignored with a warning.
	UserTimeout time.Duration
	// TLS is "tls" (tcp): serve TLS (default nil: plain TCP).
	TLS *ServerTLS

	// Path is "path" (unix, required): the socket file.
	Path string

	// MaxConnections is "max_connections" (a Junction extension): how
	// many connections the listener holds open at once, 1..2147483647; a
	// connection past it is closed at once. 0 (not given) leaves it to
	// package node, which derives it from the process's descriptor limit.
	MaxConnections int
	// MaxConnectionsPerIP is "max_connections_per_ip" (tcp, a Junction
	// extension): how many connections one client IP address may hold open
	// at once; a connection past it is closed at once. 0 (the default)
	// means no cap. On a unix endpoint, whose clients have no IP address,
	// it is an error.
	MaxConnectionsPerIP int
}

// ServerTLS is a listening endpoint's "tls". File names are relative to the
// node directory. "dhparam" and "ciphers" are accepted with a warning: Go
// chooses its own safe cipher suites.
type ServerTLS struct {
	// Key is "key" (required): the PEM private key file.
	Key string
	// Certificate is "certificate" (required): the PEM certificate file.
	Certificate string
	// ChainCertificates is "chain_certificates": intermediate certificate
	// files (PEM), sent after Certificate (and after any chain that
	// Certificate's file holds itself), in this order.
	ChainCertificates []string
	// CACertificates is "ca_certificates": CA certificate files; when
	// given, clients must present a certificate signed by one of them.
	CACertificates []string
}

// ConnectEndpoint is a connecting transport's "endpoint".
type ConnectEndpoint struct {
	// Type is "type": "tcp" or "unix" (required).
	Type string
	// Host is "host" (tcp, required).
	Host string
	// Port is "port" (tcp, required): 1..65535; may be "${NAME}" or "$NAME".
	Port int
	// Version is "version" (tcp): 4 or 6 (default 4).
	Version int
	// Path is "path" (unix, required): the socket file.
	Path string
	// Timeout is "timeout" (seconds): the connect timeout (default 10).
	Timeout time.Duration
	// TLS is "tls" (tcp): connect with TLS (default nil: plain TCP).
	TLS *ClientTLS
}

// ClientTLS is a connecting endpoint's "tls".
type ClientTLS struct {
	// Hostname is "hostname": the server name to verify (default the
	// endpoint's host).
	Hostname string
	// CACertificates is "ca_certificates": CA certificate files to trust
	// (default the system's roots).
	CACertificates []string
	// Certificate and Key are "certificate" and "key": a client certificate
	// (default none).
	Certificate string
	Key         string
}

func (d *decoder) listenEndpoint(path string, v any) ListenEndpoint {
	var e ListenEndpoint
	o, ok := d.object(path, v)
	if !ok {
		return e
	}
	switch e.Type = o.reqStr("type"); e.Type {
	case "tcp":
		d.listenTCP(o, &e)
	case "unix":
		e.Path = o.reqStr("path")
		e.Backlog = int(o.integer("backlog", 50, 1, 65535))
		o.unsupported("max_connections_per_ip", " on a unix endpoint: its clients have no IP address")
	case "":
		o.skip()
	default:
		d.unknownEndpoint(o, e.Type)
	}
	if e.Type == "tcp" || e.Type == "unix" {
		e.MaxConnections = int(o.integer("max_connections", 0, 1, maxInt32))
	}
	o.done()
	return e
}

func (d *decoder) listenTCP(o *object, e *ListenEndpoint) {
	e.Port = d.port(o, 0)
	e.Interface = o.str("interface", "")
	if e.Interface != "" && net.ParseIP(e.Interface) == nil {
		d.errorf(o.at("interface"), "invalid IP address %q", e.Interface)
	}
	e.Backlog = int(o.integer("backlog", 50, 1, 65535))
	e.Version = d.ipVersion(o)
	e.Shared = o.boolean("shared", false)
	o.ignoredIf(e.Shared, "shared", ": SO_REUSEPORT is not set, so no other process can listen on this port")
	e.UserTimeout = time.Duration(o.integer("user_timeout", 0, 0, maxInt32)) * time.Millisecond
	o.ignoredIf(e.UserTimeout != 0, "user_timeout", ": the system's TCP_USER_TIMEOUT applies")
	if v, ok := o.get("tls"); ok {
		e.TLS = d.serverTLS(o.at("tls"), v)
	}
	e.MaxConnectionsPerIP = int(o.integer("max_connections_per_ip", 0, 0, maxInt32))
	o.unsupported("portrange", " (use port 0 for any free port)")
}

func (d *decoder) unknownEndpoint(o *object, t string) {
	if why, ok := unsupportedEndpoints[t]; ok {
		d.errorf(o.at("type"), "not supported: endpoint type %q (%s)", t, why)
	} else {
		d.errorf(o.at("type"), "unknown endpoint type %q (want tcp, unix)", t)
	}
	o.skip()
}

func (d *decoder) ipVersion(o *object) int {
	n := o.integer("version", 4, minInt, maxInt)
	if n != 4 && n != 6 {
		d.errorf(o.at("version"), "must be 4 or 6, not %d", n)
		return 4
	}
	return int(n)
}

// port decodes a required "port", which may also be Crossbar's "$NAME".
func (d *decoder) port(o *object, lo int64) int {
	v, ok := o.get("port")
	if !ok {
		o.required("port")
		return 0
	}
	if s, isStr := v.(string); isStr && len(s) > 1 && s[0] == '$' && envName(s[1:]) {
		v, ok = d.lookup(o.at("port"), s[1:])
		if !ok {
			return 0
		}
		v = "${" + s[1:] + "}" // resolved again below, as an environment value
	}
	n, ok := d.integer(o.at("port"), v)
	if !ok {
		return 0
	}
	if n < lo || n > 65535 {
		d.errorf(o.at("port"), "%s", rangeMsg(n, lo, 65535))
		return 0
	}
	return int(n)
}

func (d *decoder) serverTLS(path string, v any) *ServerTLS {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	t := &ServerTLS{Key: o.reqStr("key"), Certificate: o.reqStr("certificate")}
	t.ChainCertificates = o.strList("chain_certificates")
	t.CACertificates = o.strList("ca_certificates")
	o.ignored("dhparam", ": Go chooses its own key exchange")
	o.ignored("ciphers", ": Go chooses its own cipher suites")
	o.done()
	return t
}

func (d *decoder) connectEndpoint(path string, v any) ConnectEndpoint {
	e := ConnectEndpoint{Timeout: 10 * time.Second}
	o, ok := d.object(path, v)
	if !ok {
		return e
	}
	switch e.Type = o.reqStr("type"); e.Type {
	case "tcp":
		e.Host = o.reqStr("host")
		e.Port = d.port(o, 1)
		e.Version = d.ipVersion(o)
		if v, ok := o.get("tls"); ok {
			e.TLS = d.clientTLS(o.at("tls"), v)
		}
	case "unix":
		e.Path = o.reqStr("path")
	case "":
		o.skip()
	default:
		d.unknownEndpoint(o, e.Type)
	}
	e.Timeout = time.Duration(o.integer("timeout", 10, 1, 3600)) * time.Second
	o.done()
	return e
}

func (d *decoder) clientTLS(path string, v any) *ClientTLS {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	t := &ClientTLS{Hostname: o.str("hostname", "")}
	t.CACertificates = o.strList("ca_certificates")
	t.Certificate = o.str("certificate", "")
	t.Key = o.str("key", "")
	if (t.Certificate == "") != (t.Key == "") {
		d.errorf(path, `"certificate" and "key" go together`)
	}
	o.done()
	return t
}
