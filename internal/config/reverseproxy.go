package config

// ReverseProxyService is a path service of "type": "reverseproxy": every
// request below the path is sent to an upstream HTTP server.
type ReverseProxyService struct {
	// Host is "host" (required): the upstream's host name or address.
	Host string
	// Port is "port" (1..65535, default 80): the upstream's port.
	// (Crossbar's documentation says 80 too, although its configuration
	// check needs the key.)
	Port int
	// Path is "path" (default ""): the base path on the upstream, put in
	// front of the path below the mount point.
	Path string
	// ForwardedPort is "forwarded_port" (1..65535): sent as
	// X-Forwarded-Port (default 0: the port the request arrived on).
	ForwardedPort int
	// ForwardedProto is "forwarded_proto": "http" or "https", sent as
	// X-Forwarded-Proto (default "": the scheme the request arrived
	// with).
	ForwardedProto string
}

// PathType returns "reverseproxy".
func (*ReverseProxyService) PathType() string { return "reverseproxy" }

func (d *decoder) reverseProxyService(o *object) *ReverseProxyService {
	d.id(o)
	return &ReverseProxyService{
		Host:           o.reqStr("host"),
		Port:           int(o.integer("port", 80, 1, 65535)),
		Path:           o.str("path", ""),
		ForwardedPort:  int(o.integer("forwarded_port", 0, 1, 65535)),
		ForwardedProto: o.enum("forwarded_proto", "", "protocol", "http", "https"),
	}
}
