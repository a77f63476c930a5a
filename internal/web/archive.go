package web

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Bounds of an Archive's in-memory cache (ArchiveOptions.Cache): an entry
// larger than MaxArchiveCachedEntry, or one that would take the archive's
// cache past MaxArchiveCache, is read from the file per request instead.
const (
	MaxArchiveCachedEntry = 16 << 20
	MaxArchiveCache       = 256 << 20
)

// ErrArchiveHash: the archive file matches none of the configured SHA-256
// hashes.
var ErrArchiveHash = errors.New("web: archive matches none of the sha-256 hashes")

// ArchiveOptions configures NewArchive. The zero value serves each entry
// of the archive at its own name, with no default object and no cache.
type ArchiveOptions struct {
	// ObjectPrefix is put before the request path (with a '/' between)
	// to name the entry in the archive: "dist" serves "/app/a.js" from
	// the entry "dist/a.js".
	ObjectPrefix string
	// DefaultObject is appended to a request path that is the mount point
	// or ends in '/' ("index.html"). Without it such a path is 404.
	DefaultObject string
	// DefaultFile, when set, is served (status 200) for a request naming
	// no entry, as Crossbar's archive "options.default_file": single-page
	// apps. It is looked up like a request path (prefix included) and
	// must be in the archive.
	DefaultFile string
	// Cache keeps each entry's bytes in memory once read (bounded by
	// MaxArchiveCachedEntry and MaxArchiveCache); otherwise every request
	// decompresses the entry from the file.
	Cache bool
	// MIMETypes maps a file extension to the Content-Type to send. Keys
	// may hold several dots (".min.js"): the longest one that ends the
	// entry's name wins. Other entries get the type of their extension
	// (mime.TypeByExtension), else a sniffed one.
	MIMETypes map[string]string
}

// Archive is the handler of an "archive" path service: the entries of a
// ZIP file. It answers 404 everywhere until Open succeeds, then GET and
// HEAD (405 otherwise) with Range and conditional requests (the entry's
// modification time is its Last-Modified); it sets no caching header, as
// Crossbar sets none. Request paths are checked as Static checks them (no
// dot segments, encoded separators or control characters) and then only
// ever name entries exactly: nothing outside the archive can be reached.
// The ZIP file stays open from Open to Close; entries are read from it per
// request, or once with Cache. Open and Close are called once each, by the
// owner; ServeHTTP is safe for concurrent use at any time.
type Archive struct {
	opts   ArchiveOptions
	mime   map[string]string
	loaded atomic.Pointer[archiveFiles] // nil before Open and after Close
}

// archiveFiles is an opened archive.
type archiveFiles struct {
	file     *os.File
	entries  map[string]*zip.File // by name; directories left out
	fallback *zip.File            // DefaultFile's entry, or nil

	mu     sync.Mutex        // guards cache and cached
	cache  map[string][]byte // entry bytes by name, with Cache
	cached int64             // bytes in cache
}

// NewArchive checks opts and returns an Archive that has no file yet.
func NewArchive(opts ArchiveOptions) (*Archive, error) {
	for _, name := range []string{opts.ObjectPrefix, opts.DefaultObject, opts.DefaultFile} {
		if name != "" && !archiveName(name) {
			return nil, fmt.Errorf("%w: archive object name %q: must be relative, without empty, \".\" or \"..\" segments", ErrBadOption, name)
		}
	}
	mimes, err := normaliseMIMETypes(opts.MIMETypes)
	if err != nil {
		return nil, err
	}
	return &Archive{opts: opts, mime: mimes}, nil
}

// archiveName reports whether name (a prefix, a default object) is a
// relative slash-separated name; a prefix may end in '/'.
func archiveName(name string) bool {
	_, ok := cleanRelative(strings.TrimSuffix(name, "/"))
	return ok
}

// Open opens the ZIP file name, checks it against hashes (lower- or
// upper-case SHA-256 hex; none: unchecked; a mismatch wraps
// ErrArchiveHash) and serves it from then on.
func (a *Archive) Open(name string, hashes []string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("web: archive: %w", err)
	}
	files, err := a.index(f, hashes)
	if err != nil {
		f.Close()
		return fmt.Errorf("web: archive %s: %w", name, err)
	}
	a.loaded.Store(files)
	return nil
}

// index checks f against hashes and reads its central directory.
func (a *Archive) index(f *os.File, hashes []string) (*archiveFiles, error) {
	if len(hashes) > 0 {
		if err := checkSHA256(f, hashes); err != nil {
			return nil, err
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		return nil, err
	}
	files := &archiveFiles{file: f, entries: make(map[string]*zip.File, len(zr.File)), cache: map[string][]byte{}}
	for _, e := range zr.File {
		if _, dup := files.entries[e.Name]; !dup && !strings.HasSuffix(e.Name, "/") {
			files.entries[e.Name] = e
		}
	}
	if a.opts.DefaultFile != "" {
		files.fallback = files.entries[a.objectName(a.opts.DefaultFile)]
		if files.fallback == nil {
			return nil, fmt.Errorf("%w: default_file %q: no entry %q in the archive", ErrBadOption, a.opts.DefaultFile, a.objectName(a.opts.DefaultFile))
		}
	}
	return files, nil
}

// checkSHA256 hashes f from its start and compares with hashes.
func checkSHA256(f io.ReadSeeker, hashes []string) error {
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return matchHash(hex.EncodeToString(h.Sum(nil)), hashes)
}

// matchHash compares the hex digest sum with hashes, ignoring case.
func matchHash(sum string, hashes []string) error {
	if slices.ContainsFunc(hashes, func(h string) bool { return strings.EqualFold(h, sum) }) {
		return nil
	}
	return fmt.Errorf("%w: its sha-256 is %s", ErrArchiveHash, sum)
}

// Close closes the file; the Archive answers 404 from then on.
func (a *Archive) Close() error {
	files := a.loaded.Swap(nil)
	if files == nil {
		return nil
	}
	return files.file.Close()
}

// objectName is the entry name of a request name (relative, without
// dot segments; "" for the mount point): the prefix, a '/', the name.
func (a *Archive) objectName(name string) string {
	if a.opts.ObjectPrefix == "" {
		return name
	}
	return strings.TrimSuffix(a.opts.ObjectPrefix, "/") + "/" + name
}

// ServeHTTP serves the entry the remaining request path names.
func (a *Archive) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !readOnly(w, r) {
		return
	}
	files := a.loaded.Load()
	if files == nil {
		NotFound(w, r)
		return
	}
	escaped := r.URL.EscapedPath()
	if escaped == "" {
		redirectSlash(w, r, "")
		return
	}
	e := a.lookup(files, escaped)
	if e == nil {
		NotFound(w, r)
		return
	}
	a.serveEntry(w, r, files, e)
}

// lookup finds the entry of an escaped request path, the default file
// for one that names none, or nil.
func (a *Archive) lookup(files *archiveFiles, escaped string) *zip.File {
	name, wantDir, ok := requestName(escaped)
	if !ok {
		return nil // refused paths never fall back
	}
	if wantDir {
		if a.opts.DefaultObject == "" {
			return files.fallback
		}
		name = strings.TrimPrefix(path.Join(name, a.opts.DefaultObject), "./")
	}
	if e := files.entries[a.objectName(name)]; e != nil {
		return e
	}
	return files.fallback
}

// serveEntry answers with e's content through http.ServeContent.
func (a *Archive) serveEntry(w http.ResponseWriter, r *http.Request, files *archiveFiles, e *zip.File) {
	content, err := files.content(a.opts.Cache, e)
	if err != nil {
		writeSmallJSON(w, r, http.StatusInternalServerError, `{"error":"archive entry unreadable"}`)
		return
	}
	defer content.Close()
	h := w.Header()
	if t := mimeOverride(a.mime, e.Name); t != "" {
		h.Set("Content-Type", t)
	}
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, path.Base(e.Name), e.Modified, content)
}

// readSeekCloser is what ServeContent reads an entry through.
type readSeekCloser interface {
	io.ReadSeeker
	io.Closer
}

// content returns e's bytes from the cache (filling it when cache is set
// and e fits) or a reader that decompresses e from the file.
func (f *archiveFiles) content(cache bool, e *zip.File) (readSeekCloser, error) {
	if !cache || e.UncompressedSize64 > MaxArchiveCachedEntry {
		return &entryReader{entry: e, size: int64(e.UncompressedSize64)}, nil
	}
	f.mu.Lock()
	b, ok := f.cache[e.Name]
	f.mu.Unlock()
	if !ok {
		var err error
		if b, err = readEntry(e); err != nil {
			return nil, err
		}
		f.remember(e.Name, b)
	}
	return nopCloser{bytes.NewReader(b)}, nil
}

// remember caches b as name's bytes if the cache has room.
func (f *archiveFiles) remember(name string, b []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.cache[name]; ok || f.cached+int64(len(b)) > MaxArchiveCache {
		return
	}
	f.cache[name] = b
	f.cached += int64(len(b))
}

// readEntry reads all of e (archive/zip checks its size and CRC-32).
func readEntry(e *zip.File) ([]byte, error) {
	rc, err := e.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b := make([]byte, e.UncompressedSize64)
	if _, err := io.ReadFull(rc, b); err != nil {
		return nil, err
	}
	if _, err := rc.Read(make([]byte, 1)); err != io.EOF { // the CRC-32 check
		return nil, fmt.Errorf("web: archive entry %s: %w", e.Name, zip.ErrFormat)
	}
	return b, nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// entryReader reads an entry from the file with the seeks ServeContent
// asks for: a seek only moves the position; a read behind the
// decompressor's position opens the entry again, one ahead of it skips
// forward. Memory stays at the decompressor's window whatever the size.
type entryReader struct {
	entry *zip.File
	size  int64
	off   int64         // where the next Read reads
	rc    io.ReadCloser // the open entry, at pos; nil before the first Read
	pos   int64
}

func (er *entryReader) Read(p []byte) (int, error) {
	if er.off >= er.size {
		return 0, io.EOF
	}
	if err := er.moveTo(er.off); err != nil {
		return 0, err
	}
	n, err := er.rc.Read(p)
	er.pos += int64(n)
	er.off = er.pos
	return n, err
}

// moveTo puts the open entry at offset off.
func (er *entryReader) moveTo(off int64) error {
	if er.rc == nil || er.pos > off {
		er.Close()
		rc, err := er.entry.Open()
		if err != nil {
			return err
		}
		er.rc, er.pos = rc, 0
	}
	n, err := io.CopyN(io.Discard, er.rc, off-er.pos)
	er.pos += n
	return err
}

func (er *entryReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += er.off
	case io.SeekEnd:
		offset += er.size
	}
	if offset < 0 {
		return 0, errors.New("web: archive entry: negative position")
	}
	er.off = offset
	return offset, nil
}

func (er *entryReader) Close() error {
	if er.rc == nil {
		return nil
	}
	err := er.rc.Close()
	er.rc = nil
	return err
}

var _ http.Handler = (*Archive)(nil)
