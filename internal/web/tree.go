package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"
)

// RootKey is the key of the service mounted at the root of a Tree.
const RootKey = "/"

// Tree is the path tree of a web transport: an http.Handler that routes a
// request to the service mounted at its first path segment, or to the root
// service ("/") when no key matches. A service owns everything below its
// mount point; see the package documentation for the path it receives.
//
// Mount and Sub may run concurrently with ServeHTTP (mu guards the maps), so
// services can be added while the listener serves. The zero value is not
// ready: use NewTree.
type Tree struct {
	mu       sync.RWMutex
	root     http.Handler            // mu guards; nil means 404 for unmatched paths
	children map[string]http.Handler // mu guards; key is one decoded segment
}

var _ http.Handler = (*Tree)(nil)

// NewTree returns an empty Tree: every request gets 404 until services are
// mounted.
func NewTree() *Tree {
	return &Tree{children: make(map[string]http.Handler)}
}

// Mount mounts h at key: RootKey or one URL segment (as decoded, without
// "/"). It returns an error wrapping ErrBadKey or ErrDuplicateKey.
func (t *Tree) Mount(key string, h http.Handler) error {
	if h == nil {
		return fmt.Errorf("%w %q: nil handler", ErrBadOption, key)
	}
	if err := CheckKey(key); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if key == RootKey {
		if t.root != nil {
			return fmt.Errorf("%w %q", ErrDuplicateKey, key)
		}
		t.root = h
		return nil
	}
	if _, ok := t.children[key]; ok {
		return fmt.Errorf("%w %q", ErrDuplicateKey, key)
	}
	t.children[key] = h
	return nil
}

// Sub mounts a new empty Tree at key (a "path" service) and returns it.
func (t *Tree) Sub(key string) (*Tree, error) {
	sub := NewTree()
	if err := t.Mount(key, sub); err != nil {
		return nil, err
	}
	return sub, nil
}

// CheckKey reports whether key can be mounted: RootKey, or a non-empty
// valid UTF-8 segment without "/", "\", control characters, and other than
// "." and "..". (Crossbar's validator is stricter, [A-Za-z0-9_-]+; the
// config package enforces that; this is the safety floor.)
func CheckKey(key string) error {
	if key == RootKey {
		return nil
	}
	switch {
	case key == "", key == ".", key == "..":
		return fmt.Errorf("%w %q: not a URL segment", ErrBadKey, key)
	case strings.ContainsAny(key, `/\`):
		return fmt.Errorf("%w %q: contains a path separator", ErrBadKey, key)
	case !utf8.ValidString(key) || strings.ContainsFunc(key, isControl):
		return fmt.Errorf("%w %q: invalid or control characters", ErrBadKey, key)
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// ServeHTTP routes r by its first segment; see Tree.
func (t *Tree) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, consumed, rest := t.route(r.URL.EscapedPath())
	if h == nil {
		NotFound(w, r)
		return
	}
	t.serveChild(w, r, h, consumed, rest)
}

// route finds the service of the escaped path: the child mounted at its
// first segment, which consumes "/segment", or else the root service,
// which consumes nothing; rest is what is left of the path. h is nil when
// no service owns the path.
func (t *Tree) route(escaped string) (h http.Handler, consumed, rest string) {
	key, rest, ok := firstSegment(escaped)
	h, matched := t.lookup(key, ok)
	switch {
	case matched:
		return h, escaped[:len(escaped)-len(rest)], rest
	case h != nil && (escaped == "" || escaped[0] == '/'):
		return h, "", escaped
	}
	return nil, "", ""
}

// lookup returns the child mounted at key (matched) or else the root
// service, which may be nil.
func (t *Tree) lookup(key string, ok bool) (h http.Handler, matched bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if ok {
		if h, found := t.children[key]; found {
			return h, true
		}
	}
	return t.root, false
}

// serveChild hands r to h with consumed (escaped, e.g. "/static") added to
// the mount path and rest (escaped, "" or starting with "/") as its path.
func (t *Tree) serveChild(w http.ResponseWriter, r *http.Request, h http.Handler, consumed, rest string) {
	r2 := withMount(r, consumed, rest)
	if r2 == nil {
		http.Error(w, "400 bad request: malformed path", http.StatusBadRequest)
		return
	}
	h.ServeHTTP(w, r2)
}

// firstSegment splits an escaped path "/seg/rest" into the decoded first
// segment and the escaped rest ("/rest", or "" for "/seg"). ok is false when
// the path does not start with "/" or the segment does not decode.
func firstSegment(escaped string) (key, rest string, ok bool) {
	p, found := strings.CutPrefix(escaped, "/")
	if !found {
		return "", "", false
	}
	seg, rest := p, ""
	if i := strings.IndexByte(p, '/'); i >= 0 {
		seg, rest = p[:i], p[i:]
	}
	key, err := url.PathUnescape(seg)
	if err != nil || key == "" {
		return "", "", false
	}
	return key, rest, true
}

// mountInfo is the context value that carries the paths a service needs to
// know about its mount point.
type mountInfo struct {
	prefix   string // escaped path consumed by the trees so far
	original string // escaped path as received by the outermost tree
}

type mountKey struct{}

// mountCtx is the context of a request below a Tree: it carries the
// request's mountInfo (as a *mountInfo, for mountKey) and holds its URL,
// one allocation for both. Everything else is its parent's.
type mountCtx struct {
	context.Context
	info mountInfo
	url  url.URL
}

func (c *mountCtx) Value(key any) any {
	if _, ok := key.(mountKey); ok {
		return &c.info
	}
	return c.Context.Value(key)
}

// mountOf returns the mountInfo of r's context, nil outside a Tree.
func mountOf(r *http.Request) *mountInfo {
	info, _ := r.Context().Value(mountKey{}).(*mountInfo)
	return info
}

// withMount returns a shallow copy of r whose URL path is rest (escaped) and
// whose mount prefix grows by consumed. It returns nil if rest does not
// decode (never for paths parsed by net/http).
func withMount(r *http.Request, consumed, rest string) *http.Request {
	path, err := url.PathUnescape(rest)
	if err != nil {
		return nil
	}
	c := &mountCtx{Context: r.Context(), url: *r.URL}
	if info := mountOf(r); info != nil {
		c.info = *info
	} else {
		c.info.original = r.URL.EscapedPath()
	}
	c.info.prefix += consumed
	u := &c.url
	u.Path, u.RawPath = path, ""
	if u.EscapedPath() != rest {
		u.RawPath = rest // keep the encoding as received
	}
	r2 := r.WithContext(c)
	r2.URL = u
	return r2
}

// MountPath returns the escaped URL prefix consumed by the Trees above the
// service handling r ("" at the root, "/static", "/nested/static").
func MountPath(r *http.Request) string {
	if info := mountOf(r); info != nil {
		return info.prefix
	}
	return ""
}

// OriginalPath returns the escaped URL path as received by the outermost
// Tree, or r's own path when r did not come through a Tree.
func OriginalPath(r *http.Request) string {
	if info := mountOf(r); info != nil {
		return info.original
	}
	return r.URL.EscapedPath()
}
