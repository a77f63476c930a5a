package web

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
)

// redirectBody mirrors Twisted's redirect page for clients that ignore the
// status code; html/template escapes the URL.
var redirectBody = template.Must(template.New("redirect").Parse(
	`<html><head><meta http-equiv="refresh" content="0;URL={{.}}"></head>` +
		`<body bgcolor="#FFFFFF" text="#000000"><a href="{{.}}">click here</a></body></html>` + "\n"))

// redirect answers every request with the same redirect; see Redirect.
type redirect struct {
	status int
	target string
	body   []byte
}

// Redirect returns the handler of a "redirect" path service: every request
// below the mount point, whatever its method, is redirected to target,
// which must be an absolute http(s) URL or an absolute path. status 0 means
// 302 Found, which is what Crossbar sends (its service is Twisted's
// web.util.Redirect, whose redirectTo answers FOUND); 301, 303, 307 and 308
// may be chosen. The request's sub-path and query are not appended, as in
// Crossbar.
func Redirect(target string, status int) (http.Handler, error) {
	if status == 0 {
		status = http.StatusFound
	}
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return nil, fmt.Errorf("%w: redirect status %d: not a redirect status", ErrBadOption, status)
	}
	if err := checkRedirectTarget(target); err != nil {
		return nil, err
	}
	var b strings.Builder
	if err := redirectBody.Execute(&b, target); err != nil {
		return nil, fmt.Errorf("web: redirect body: %w", err)
	}
	return &redirect{status: status, target: target, body: []byte(b.String())}, nil
}

func checkRedirectTarget(target string) error {
	u, err := url.Parse(target)
	if err != nil {
		return fmt.Errorf("%w: redirect url %q: %w", ErrBadOption, target, err)
	}
	switch {
	case strings.ContainsAny(target, "\r\n"):
		return fmt.Errorf("%w: redirect url %q: contains a line break", ErrBadOption, target)
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host != "":
		return nil
	case u.Scheme == "" && u.Host == "" && strings.HasPrefix(u.Path, "/") && !strings.HasPrefix(target, "//"):
		return nil
	}
	return fmt.Errorf("%w: redirect url %q: must be an absolute http(s) URL or path", ErrBadOption, target)
}

// ServeHTTP redirects; the Location header is target exactly as configured.
func (h *redirect) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Location", h.target)
	writeBody(w, r, h.status, "text/html; charset=utf-8", h.body)
}
