package config

import (
	"encoding/hex"
	"net/url"
	"strings"
)

// ArchiveService is a path service of "type": "archive": the files of a
// ZIP archive, downloaded at start when asked to.
type ArchiveService struct {
	// Archive is "archive" (required): the ZIP file, relative to the node
	// directory. When it exists it is used and Origin is never fetched.
	Archive string
	// Origin is "origin" (an http or https URL; default none): where the
	// archive is downloaded from when missing.
	Origin string
	// Download is "download" (default false): download Origin at start
	// when Archive is missing. When false, a missing archive makes every
	// request there 404 (with a warning).
	Download bool
	// Hashes is "hashes": SHA-256 hex digests (64 hex digits, either
	// case), lower-cased; the archive must match one of them (default
	// none: not checked, with a warning at start).
	Hashes []string
	// ObjectPrefix is "object_prefix" (default ""): put before the request
	// path, with a '/', to name the entry in the archive.
	ObjectPrefix string
	// DefaultObject is "default_object" (default "": 404): the entry
	// served for the mount point and any path ending in '/'.
	DefaultObject string
	// DefaultFile is "options"."default_file" (default "": 404): the entry
	// served for a path that names none (single-page apps).
	DefaultFile string
	// Cache is "cache" (default false): keep entries in memory once read.
	Cache bool
	// MIMETypes is "mime_types": content types by file extension
	// (".min.js" may hold several dots) (default none).
	MIMETypes map[string]string
}

// PathType returns "archive".
func (*ArchiveService) PathType() string { return "archive" }

func (d *decoder) archiveService(o *object) *ArchiveService {
	d.id(o)
	s := &ArchiveService{
		Archive:       o.reqValidStr("archive", func(s string) bool { return s != "" }, "must not be empty (got %q)"),
		Origin:        o.validStr("origin", "", httpOrigin, "want an http or https URL, not %q"),
		Download:      o.boolean("download", false),
		ObjectPrefix:  o.validStr("object_prefix", "", archiveObjectName, "must be a relative name without \".\" or \"..\" segments, not %q"),
		DefaultObject: o.validStr("default_object", "", archiveObjectName, "must be a relative name without \".\" or \"..\" segments, not %q"),
		Cache:         o.boolean("cache", false),
	}
	o.list("hashes", func(p string, v any) {
		if h, ok := d.str(p, v); ok && d.sha256Hex(p, h) {
			s.Hashes = append(s.Hashes, strings.ToLower(h))
		}
	})
	o.each("mime_types", func(p, ext string, v any) {
		if t, ok := d.str(p, v); ok {
			if s.MIMETypes == nil {
				s.MIMETypes = map[string]string{}
			}
			s.MIMETypes[ext] = t
		}
	})
	if oo, ok := o.child("options"); ok {
		s.DefaultFile = oo.validStr("default_file", "", archiveObjectName, "must be a relative name without \".\" or \"..\" segments, not %q")
		oo.done()
	}
	return s
}

// sha256Hex reports whether h is 64 hex digits, reporting it otherwise.
func (d *decoder) sha256Hex(path, h string) bool {
	if b, err := hex.DecodeString(h); err != nil || len(b) != 32 {
		d.errorf(path, "must be 64 hex digits (a SHA-256 digest), not %q", h)
		return false
	}
	return true
}

// httpOrigin reports whether s is an absolute http or https URL ("" is
// none, and valid).
func httpOrigin(s string) bool {
	if s == "" {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// archiveObjectName reports whether s is "" or a relative slash-separated
// name (a trailing '/' allowed) without empty, "." or ".." segments.
func archiveObjectName(s string) bool {
	if s == "" {
		return true
	}
	s = strings.TrimSuffix(s, "/")
	for seg := range strings.SplitSeq(s, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.Contains(seg, "\\") {
			return false
		}
	}
	return true
}
