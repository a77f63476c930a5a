package web

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultCacheTimeout is Crossbar's default cache_timeout for static paths
// (12 hours). StaticOptions.CacheTimeout has no implicit default: the node
// sets this when the config leaves cache_timeout out.
const DefaultCacheTimeout = 43200

// StaticOptions configures Static. The zero value (plus a Directory) serves
// files with no directory listing, no SPA fallback and Cache-Control
// "no-cache".
type StaticOptions struct {
	// Directory is the absolute path of the served directory. Nothing
	// outside it is ever served: paths are resolved with os.Root, so "..",
	// absolute paths and symlinks that leave the directory are refused.
	Directory string
	// EnableDirectoryListing serves an HTML listing for a directory without
	// index.html. When false such a directory is "not found" (404, or
	// DefaultFile when set): 404 rather than 403 so that probing does not
	// learn which directories exist. A listing leaves out dotfiles and
	// what a request could not fetch (symlinks leaving the directory);
	// dotfiles are still served when asked for by name.
	EnableDirectoryListing bool
	// DefaultFile, when set, is served with status 200 for any path that
	// does not exist (single-page apps). It is relative to Directory and
	// must not leave it. Refused paths (escapes, bad segments) still get 404.
	DefaultFile string
	// CacheTimeout in seconds: > 0 sends "Cache-Control: public,
	// max-age=N" and an Expires header; 0 sends "Cache-Control: no-cache"
	// (clients revalidate with If-Modified-Since). Negative is an error.
	CacheTimeout int
	// MIMETypes maps a file extension (".ext" or "ext", case-insensitive;
	// it may hold several dots, ".min.js", and the longest that ends the
	// file's name wins) to the Content-Type to send, overriding the
	// built-in table.
	MIMETypes map[string]string
	// AllowMissing accepts a Directory that does not exist, as Crossbar
	// does: every request then gets 404, until the directory appears (it
	// is opened per request). When false, a missing Directory is an error
	// wrapping fs.ErrNotExist.
	AllowMissing bool
}

// static serves the files of one directory; see Static. It is immutable
// after construction and safe for concurrent use.
type static struct {
	dir      string
	listing  bool
	fallback string            // slash-separated, relative; "" for none
	cache    string            // Cache-Control value
	maxAge   time.Duration     // for Expires; 0 for none
	mime     map[string]string // lower-case ".ext" -> type
}

// Static returns the handler of a "static" path service. It answers GET and
// HEAD (405 otherwise), serves index.html for a directory, redirects a
// directory without trailing slash (and the bare mount point) to the slash
// form with 302, and supports Range and conditional requests.
//
// The directory is opened per request with os.Root, so the handler holds no
// file descriptor and needs no Close.
func Static(opts StaticOptions) (http.Handler, error) {
	s := &static{dir: opts.Directory, listing: opts.EnableDirectoryListing}
	if err := checkDirectory(opts.Directory, opts.AllowMissing); err != nil {
		return nil, err
	}
	if opts.DefaultFile != "" {
		name, ok := cleanRelative(opts.DefaultFile)
		if !ok {
			return nil, fmt.Errorf("%w: static default_file %q: must be a relative path inside the directory", ErrBadOption, opts.DefaultFile)
		}
		s.fallback = name
	}
	if err := s.setCache(opts.CacheTimeout); err != nil {
		return nil, err
	}
	mimes, err := normaliseMIMETypes(opts.MIMETypes)
	if err != nil {
		return nil, err
	}
	s.mime = mimes
	return s, nil
}

// checkDirectory refuses a Directory that is relative, not a directory, or
// missing (unless allowMissing).
func checkDirectory(dir string, allowMissing bool) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%w: static directory %q: must be absolute", ErrBadOption, dir)
	}
	fi, err := os.Stat(dir)
	if allowMissing && errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("web: static directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: static directory %q: not a directory", ErrBadOption, dir)
	}
	return nil
}

func (s *static) setCache(seconds int) error {
	switch {
	case seconds < 0:
		return fmt.Errorf("%w: static cache_timeout %d: must be >= 0", ErrBadOption, seconds)
	case seconds == 0:
		s.cache = "no-cache"
	default:
		s.cache = "public, max-age=" + strconv.Itoa(seconds)
		s.maxAge = time.Duration(seconds) * time.Second
	}
	return nil
}

// ServeHTTP serves the file named by r's (remaining) URL path.
func (s *static) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !readOnly(w, r) {
		return
	}
	root, err := os.OpenRoot(s.dir)
	if err != nil { // a missing directory: 404 everywhere, the mount point too
		NotFound(w, r)
		return
	}
	defer root.Close()
	escaped := r.URL.EscapedPath()
	if escaped == "" {
		redirectSlash(w, r, "")
		return
	}
	name, wantDir, ok := requestName(escaped)
	if !ok {
		NotFound(w, r)
		return
	}
	s.serveName(w, r, root, name, wantDir)
}

// serveName serves name (already checked by requestName) from root.
func (s *static) serveName(w http.ResponseWriter, r *http.Request, root *os.Root, name string, wantDir bool) {
	fi, err := root.Stat(name)
	switch {
	case err != nil:
		s.fail(w, r, root, err)
	case fi.IsDir() && !wantDir:
		redirectSlash(w, r, r.URL.EscapedPath())
	case fi.IsDir():
		s.serveDir(w, r, root, name)
	case fi.Mode().IsRegular() && !wantDir:
		s.serveFile(w, r, root, name)
	case fi.Mode().IsRegular():
		s.missing(w, r, root) // "file.txt/"
	default:
		NotFound(w, r) // devices, FIFOs, sockets: never opened
	}
}

// serveDir serves index.html, a listing, or "not found" for a directory.
func (s *static) serveDir(w http.ResponseWriter, r *http.Request, root *os.Root, name string) {
	index := path.Join(name, "index.html")
	if fi, err := root.Stat(index); err == nil && fi.Mode().IsRegular() {
		s.serveFile(w, r, root, index)
		return
	}
	if s.listing {
		s.serveListing(w, r, root, name)
		return
	}
	s.missing(w, r, root)
}

// fail answers a failed lookup: missing files may fall back to the default
// file; refusals (escapes, symlink loops) are 404 and permission errors 403.
func (s *static) fail(w http.ResponseWriter, r *http.Request, root *os.Root, err error) {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		s.missing(w, r, root)
	case errors.Is(err, fs.ErrPermission):
		writeSmallJSON(w, r, http.StatusForbidden, `{"error":"forbidden"}`)
	default:
		NotFound(w, r)
	}
}

// missing serves the default file, if any, else 404.
func (s *static) missing(w http.ResponseWriter, r *http.Request, root *os.Root) {
	if s.fallback == "" {
		NotFound(w, r)
		return
	}
	s.serveFile(w, r, root, s.fallback)
}

// serveFile serves the regular file name with the cache and type headers.
func (s *static) serveFile(w http.ResponseWriter, r *http.Request, root *os.Root, name string) {
	f, err := root.Open(name)
	if err != nil {
		NotFound(w, r)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		NotFound(w, r)
		return
	}
	s.setHeaders(w.Header(), name)
	http.ServeContent(w, r, fi.Name(), fi.ModTime(), f)
}

func (s *static) setHeaders(h http.Header, name string) {
	h.Set("Cache-Control", s.cache)
	if s.maxAge > 0 {
		h.Set("Expires", time.Now().Add(s.maxAge).UTC().Format(http.TimeFormat))
	}
	if t := mimeOverride(s.mime, name); t != "" {
		h.Set("Content-Type", t)
	}
	h.Set("X-Content-Type-Options", "nosniff")
}

// redirectSlash redirects (302, as Twisted does) to the mount path plus
// escaped plus "/", keeping the query.
func redirectSlash(w http.ResponseWriter, r *http.Request, escaped string) {
	target := MountPath(r) + escaped + "/"
	if strings.HasPrefix(target, "//") {
		target = "/" + strings.TrimLeft(target, "/") // never a scheme-relative URL
	}
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, target, http.StatusFound)
}
