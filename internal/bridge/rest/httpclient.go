package rest

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects is how many redirects one request follows, as net/http.
const maxRedirects = 10

// errRedirect is wrapped by the error of a redirect the Callee refuses.
var errRedirect = errors.New("rest: redirect leaves baseurl")

// newTransport is a pooled keep-alive transport: the default one with
// more idle connections per host, since a component talks to few hosts.
func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 64
	return t
}

// httpClient returns a copy of c (nil: a client on a new pooled
// transport) whose redirects must satisfy allow. The caller's client is
// not modified.
func httpClient(c *http.Client, allow func(*url.URL) bool) *http.Client {
	return withRedirectPolicy(c, func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("rest: stopped after %d redirects", maxRedirects)
		}
		if !allow(req.URL) {
			return fmt.Errorf("%w: %s", errRedirect, req.URL.Redacted())
		}
		return nil
	})
}

// withRedirectPolicy returns a copy of c (nil: a client on a new pooled
// transport) with check as its CheckRedirect.
func withRedirectPolicy(c *http.Client, check func(*http.Request, []*http.Request) error) *http.Client {
	var hc http.Client
	if c != nil {
		hc = *c
	} else {
		hc.Transport = newTransport()
	}
	hc.CheckRedirect = check
	return &hc
}

// validMethod reports whether m is an HTTP token (RFC 9110 5.6.2).
func validMethod(m string) bool {
	return m != "" && strings.IndexFunc(m, func(r rune) bool { return !isTokenChar(r) }) < 0
}

func isTokenChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return r < 0x80 && strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}

// validHeaderValue refuses control characters other than tab (CR and LF
// would split the header).
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
