package rest

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/junction-wamp/junction/internal/dotsegment"
)

// Errors of the URL confinement; each is wrapped with the offending text.
var (
	errOutside  = errors.New("rest: target outside baseurl")
	errBadURL   = errors.New("rest: invalid url")
	errNotHTTP  = errors.New("rest: url must be an absolute http or https URL")
	errBaseURL  = errors.New("rest: baseurl must be an http or https URL")
	errEncSlash = errors.New("rest: url path must not contain an encoded slash or backslash")
	errDotParam = errors.New("rest: url path must not contain a dot segment with parameters")
	errEncoded  = errors.New("rest: url path must not contain a dot segment, slash or backslash encoded twice")
)

// baseURL is a Callee's configured base: every target must stay below it.
// The zero value (from baseurl "") allows any absolute http(s) URL.
// Read-only after parseBaseURL, so safe for concurrent use.
type baseURL struct {
	u    *url.URL // nil: any URL
	path string   // u's escaped path without its trailing slash
}

// parseBaseURL checks a configured baseurl: "" or an absolute http(s) URL
// with a host and no query or fragment.
func parseBaseURL(s string) (baseURL, error) {
	if s == "" {
		return baseURL{}, nil
	}
	u, err := url.Parse(s)
	if err != nil || !isHTTP(u) || strings.ContainsRune(s, '\\') {
		return baseURL{}, fmt.Errorf("%w: %q", errBaseURL, s)
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return baseURL{}, fmt.Errorf("%w without a query or fragment: %q", errBaseURL, s)
	}
	return baseURL{u: u, path: strings.TrimSuffix(u.EscapedPath(), "/")}, nil
}

func isHTTP(u *url.URL) bool {
	return (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Opaque == ""
}

// resolve returns the target of a call's url: base + "/" + rel with
// exactly one slash between, its dot segments resolved. It refuses a rel
// that is absolute, scheme-relative, holds a backslash or an encoded slash,
// climbs above the base, or has a segment that an upstream could read as
// a dot segment where we do not (see checkSegment). With no base, rel must
// be an absolute http(s) URL.
func (b baseURL) resolve(rel string) (*url.URL, error) {
	if b.u == nil {
		return absoluteTarget(rel)
	}
	if rel == "" {
		u := *b.u
		return &u, nil
	}
	if err := checkRelative(rel); err != nil {
		return nil, err
	}
	p, query := cutQuery(rel)
	segs, err := cleanSegments(strings.TrimPrefix(p, "/"))
	if err != nil {
		return nil, err
	}
	raw := b.u.Scheme + "://" + hostPart(b.u) + b.path + "/" + strings.Join(segs, "/") + query
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadURL, err)
	}
	return u, nil
}

// absoluteTarget checks a url given when baseurl is "".
func absoluteTarget(rel string) (*url.URL, error) {
	u, err := url.Parse(rel)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadURL, err)
	}
	if !isHTTP(u) || strings.ContainsRune(rel, '\\') {
		return nil, fmt.Errorf("%w: %q", errNotHTTP, rel)
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// checkRelative refuses what could name another origin: a scheme, "//",
// or a backslash (which some servers and browsers read as a slash).
func checkRelative(rel string) error {
	if strings.ContainsRune(rel, '\\') {
		return fmt.Errorf("%w: backslash in %q", errOutside, rel)
	}
	if strings.HasPrefix(rel, "//") {
		return fmt.Errorf("%w: scheme-relative url %q", errOutside, rel)
	}
	p, _ := cutQuery(rel)
	if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ":") {
		return fmt.Errorf("%w: absolute url %q", errOutside, rel)
	}
	return nil
}

// cutQuery splits rel into its path and its "?query" (the fragment is
// dropped: it is never sent).
func cutQuery(rel string) (path, query string) {
	rel, _, _ = strings.Cut(rel, "#")
	if i := strings.IndexByte(rel, '?'); i >= 0 {
		return rel[:i], rel[i:]
	}
	return rel, ""
}

// hostPart is u's userinfo and host as written.
func hostPart(u *url.URL) string {
	if u.User != nil {
		return u.User.String() + "@" + u.Host
	}
	return u.Host
}

// cleanSegments resolves the dot segments of a relative escaped path
// (percent-encoded dots included) and refuses climbing above its root and
// the segments checkSegment refuses. The segments keep their escaping.
func cleanSegments(p string) ([]string, error) {
	var out []string
	parts := strings.Split(p, "/")
	for i, seg := range parts {
		dec, err := checkSegment(seg)
		if err != nil {
			return nil, err
		}
		last := i == len(parts)-1
		switch dec {
		case ".":
		case "..":
			if len(out) == 0 {
				return nil, fmt.Errorf("%w: %q climbs above it", errOutside, p)
			}
			out = out[:len(out)-1]
		default:
			out = append(out, seg)
			continue
		}
		if last {
			out = append(out, "") // "a/.." is "a/../", a directory
		}
	}
	return out, nil
}

// checkSegment decodes one escaped path segment. It refuses an encoded
// slash or backslash, and what an upstream may read as a dot segment
// where a URL parser does not (see dotsegment.Check): "." or ".." with
// path parameters ("..;", "..;x", "%2e%2e;"), which Tomcat and Spring
// resolve as "..", and a dot segment, slash or backslash encoded twice
// ("%252e%252e", "%252f", "%252e%252e;%25"), which an upstream that
// decodes again, leniently, resolves. "." and ".." themselves are
// returned, for cleanSegments to resolve.
func checkSegment(seg string) (string, error) {
	dec, err := url.PathUnescape(seg)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errBadURL, err)
	}
	if strings.ContainsAny(dec, "/\\") {
		return "", fmt.Errorf("%w: %q", errEncSlash, seg)
	}
	if dec == "." || dec == ".." {
		return dec, nil
	}
	if err := dotsegment.Check(dec); err != nil {
		if errors.Is(err, dotsegment.ErrParams) {
			return "", fmt.Errorf("%w: %q", errDotParam, seg)
		}
		return "", fmt.Errorf("%w: %q: %w", errEncoded, seg, err)
	}
	return dec, nil
}

// contains reports whether u (a redirect's target) is below the base: same
// scheme, host and port, and a path that stays under the base path once its
// dot segments and escapes are resolved.
func (b baseURL) contains(u *url.URL) bool {
	if b.u == nil {
		return isHTTP(u)
	}
	if u.Scheme != b.u.Scheme || !sameHost(u, b.u) || u.Opaque != "" {
		return false
	}
	p := u.EscapedPath()
	if b.path != "" && p != b.path && !strings.HasPrefix(p, b.path+"/") {
		return false
	}
	if strings.ContainsRune(p, '\\') {
		return false
	}
	_, err := cleanSegments(strings.TrimPrefix(strings.TrimPrefix(p, b.path), "/"))
	return err == nil
}

// sameHost compares hosts case-insensitively and ports with the scheme's
// default filled in.
func sameHost(a, b *url.URL) bool {
	return strings.EqualFold(a.Hostname(), b.Hostname()) && portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}
