package config

import (
	"net/url"
	"strconv"
)

// rawSocketURL checks the "url" of a connecting RawSocket transport, which
// Crossbar accepts and only parses (the endpoint says where to connect): an
// rs:// or rss:// URL with a host, and no query or fragment; a TCP URL
// ("rs://host:9000") has no path and a port in 1..65535, a Unix socket
// URL is "rs://unix:/path". "" is none.
func (d *decoder) rawSocketURL(o *object) {
	s := o.str("url", "")
	if s == "" {
		return
	}
	if why := rawSocketURLProblem(s); why != "" {
		d.errorf(o.at("url"), "invalid RawSocket URL %q: %s (want rs://host[:port], rss://..., or rs://unix:/path)", s, why)
	}
}

// rawSocketURLProblem says what is wrong with the RawSocket URL s, or "".
func rawSocketURLProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "does not parse"
	case u.Scheme != "rs" && u.Scheme != "rss":
		return "scheme " + strconv.Quote(u.Scheme) + " is not for RawSocket"
	case u.Hostname() == "":
		return "missing host"
	case u.RawQuery != "" || u.ForceQuery:
		return "non-empty query"
	case u.Fragment != "":
		return "non-empty fragment"
	case u.Hostname() == "unix":
		if u.Path == "" {
			return "missing socket path"
		}
		return ""
	case u.Path != "":
		return "non-empty path " + strconv.Quote(u.Path)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "port " + strconv.Quote(p) + " not in 1..65535"
		}
	}
	return ""
}
