package config

import (
	"slices"
	"strings"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// Permission is an item of a role's "permissions".
type Permission struct {
	// URI is "uri" (required; may be ""): the URI or pattern the
	// permission is for. Without "match", a "starred" URI is converted as
	// Crossbar does: no '*' means exact; one trailing '*' means prefix (the
	// '*' removed, so "*" is the prefix "" that matches everything); any
	// other '*' means wildcard (the '*'s removed: "a.*.c" is "a..c").
	URI string
	// Match is "match": "exact", "prefix" or "wildcard" (default: from the
	// URI, see above).
	Match uriindex.Match
	// Allow is "allow": which actions are allowed (each default false).
	Allow Allow
	// Disclose is "disclose": whether the caller or publisher is disclosed
	// to callees or subscribers (each default false).
	Disclose Disclose
	// Cache is "cache": in Crossbar, authorization decisions may be cached
	// (default false). Accepted without a warning but without effect:
	// Junction never caches authorization because it is always computed
	// in nanoseconds (an in-memory lookup); Crossbar's default template
	// sets it, so a warning would be noise. Package node logs it at debug
	// level.
	Cache bool
}

// Allow is a permission's "allow".
type Allow struct {
	Call      bool // "call"
	Register  bool // "register"
	Publish   bool // "publish"
	Subscribe bool // "subscribe"
}

// Disclose is a permission's "disclose".
type Disclose struct {
	Caller    bool // "caller"
	Publisher bool // "publisher"
}

func (d *decoder) permission(path string, v any) *Permission {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	p := &Permission{}
	if !o.has("uri") {
		o.get("uri")
		o.required("uri")
	}
	p.URI = o.str("uri", "")
	d.permissionMatch(o, p)
	d.flags(o, "allow", map[string]*bool{"call": &p.Allow.Call, "register": &p.Allow.Register,
		"publish": &p.Allow.Publish, "subscribe": &p.Allow.Subscribe})
	d.flags(o, "disclose", map[string]*bool{"caller": &p.Disclose.Caller, "publisher": &p.Disclose.Publisher})
	p.Cache = o.boolean("cache", false)
	o.ignored("validate", ": payload validation")
	o.done()
	return p
}

// permissionMatch decodes "match", or converts a starred URI, and checks
// the URI against the match policy.
func (d *decoder) permissionMatch(o *object, p *Permission) {
	if o.has("match") {
		s := o.enum("match", "", "match policy", "exact", "prefix", "wildcard")
		p.Match, _ = uriindex.ParseMatch(s)
	} else {
		o.get("match")
		p.URI, p.Match = starredURI(p.URI)
	}
	if p.URI != "" && !wamp.ValidURI(wamp.URI(p.URI), false, p.Match.String()) {
		d.errorf(o.at("uri"), "invalid URI %q for match %s", p.URI, p.Match)
	}
}

// starredURI converts a Crossbar "starred" URI to a URI and a policy.
func starredURI(uri string) (string, uriindex.Match) {
	switch n := strings.Count(uri, "*"); {
	case n == 0:
		return uri, uriindex.Exact
	case n == 1 && strings.HasSuffix(uri, "*"):
		return uri[:len(uri)-1], uriindex.Prefix
	}
	return strings.ReplaceAll(uri, "*", ""), uriindex.Wildcard
}

// flags decodes an object of booleans such as "allow", each default false.
func (d *decoder) flags(o *object, key string, into map[string]*bool) {
	v, ok := o.get(key)
	if !ok {
		return
	}
	fo, ok := d.object(o.at(key), v)
	if !ok {
		return
	}
	for _, k := range sortedKeysOf(into) {
		*into[k] = fo.boolean(k, false)
	}
	fo.done()
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
