package config

import (
	"net/url"
	"time"
)

// StaticService is a path service of "type": "static": files from a
// directory.
type StaticService struct {
	// Directory is "directory" (required): the directory served, relative
	// to the node directory. Crossbar's "package" + "resource" (files of a
	// Python package) are not supported.
	Directory string
	// Options is "options".
	Options StaticOptions
}

// StaticOptions is a static service's "options".
type StaticOptions struct {
	// EnableDirectoryListing is "enable_directory_listing" (default false).
	EnableDirectoryListing bool
	// MIMETypes is "mime_types": extra content types by file extension,
	// such as {".wasm": "application/wasm"} (default none).
	MIMETypes map[string]string
	// CacheTimeout is "cache_timeout" (seconds, >= 0, or null): more than 0
	// sends "Cache-Control: public, max-age=N" and an Expires header; 0 or
	// null sends "Cache-Control: no-cache", so browsers revalidate every
	// time (what Crossbar's "max-age=0" for 0 asks; for null Crossbar sends
	// no caching header and lets browsers guess) (default 43200, twelve
	// hours).
	CacheTimeout time.Duration
	// DefaultFile is "default_file": the file served for a path that does
	// not exist, such as "index.html" for single-page apps (default "":
	// 404).
	DefaultFile string
}

// RedirectService is a path service of "type": "redirect".
type RedirectService struct {
	// URL is "url" (required): where requests are redirected.
	URL string
}

// JSONService is a path service of "type": "json": a fixed JSON document.
type JSONService struct {
	// Value is "value" (required): any JSON value, served as is.
	Value any
	// Options is "options".
	Options JSONOptions
}

// JSONOptions is a json service's "options", converted by package node
// into web.JSONOptions (same fields). (Crossbar checks these keys
// but never applies them: it always serves the document compact, with
// CORS headers and no caching header, which is what the defaults do.)
type JSONOptions struct {
	// Prettify is "prettify": indent the document by three spaces
	// (default false: compact).
	Prettify bool
	// AllowCrossOrigin is "allow_cross_origin": send
	// "Access-Control-Allow-Origin: *", so that pages of any origin may
	// read the document (default true).
	AllowCrossOrigin bool
	// DiscourageCaching is "discourage_caching": send "Cache-Control:
	// no-store, no-cache, must-revalidate, max-age=0" (default false).
	DiscourageCaching bool
}

// NodeInfoService is a path service of "type": "nodeinfo": a page about
// the node.
type NodeInfoService struct{}

// PathType returns "static".
func (*StaticService) PathType() string { return "static" }

// PathType returns "redirect".
func (*RedirectService) PathType() string { return "redirect" }

// PathType returns "json".
func (*JSONService) PathType() string { return "json" }

// PathType returns "nodeinfo".
func (*NodeInfoService) PathType() string { return "nodeinfo" }

func (d *decoder) staticService(o *object) *StaticService {
	s := &StaticService{Options: StaticOptions{CacheTimeout: 43200 * time.Second}}
	switch {
	case o.has("package") || o.has("resource"):
		o.get("package")
		o.get("resource")
		o.get("directory")
		d.errorf(o.at("package"), "not supported: \"package\" + \"resource\" serve files of a Python package; use \"directory\"")
	default:
		s.Directory = o.reqStr("directory")
	}
	if v, ok := o.get("options"); ok {
		d.staticOptions(o.at("options"), v, &s.Options)
	}
	return s
}

func (d *decoder) staticOptions(path string, v any, opts *StaticOptions) {
	o, ok := d.object(path, v)
	if !ok {
		return
	}
	opts.EnableDirectoryListing = o.boolean("enable_directory_listing", false)
	o.each("mime_types", func(p, ext string, v any) {
		if t, ok := d.str(p, v); ok {
			if opts.MIMETypes == nil {
				opts.MIMETypes = map[string]string{}
			}
			opts.MIMETypes[ext] = t
		}
	})
	if v, present := o.m["cache_timeout"]; present && v == nil {
		opts.CacheTimeout = 0
	}
	opts.CacheTimeout = time.Duration(o.integer("cache_timeout", int64(opts.CacheTimeout/time.Second), 0, maxInt32)) * time.Second
	opts.DefaultFile = o.str("default_file", "")
	o.done()
}

func (d *decoder) redirectService(o *object) *RedirectService {
	s := &RedirectService{URL: o.reqStr("url")}
	if s.URL != "" {
		if _, err := url.Parse(s.URL); err != nil {
			d.errorf(o.at("url"), "invalid URL %q", s.URL)
		}
	}
	return s
}

func (d *decoder) jsonService(o *object) *JSONService {
	s := &JSONService{Options: JSONOptions{AllowCrossOrigin: true}}
	if v, ok := o.get("value"); ok {
		s.Value = d.resolveDeep(o.at("value"), v)
	} else {
		o.required("value")
	}
	if oo, ok := o.child("options"); ok {
		s.Options.Prettify = oo.boolean("prettify", false)
		s.Options.AllowCrossOrigin = oo.boolean("allow_cross_origin", true)
		s.Options.DiscourageCaching = oo.boolean("discourage_caching", false)
		oo.done()
	}
	return s
}

func (d *decoder) nodeInfoService(o *object) *NodeInfoService {
	return &NodeInfoService{}
}
