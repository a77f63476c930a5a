package config

import "time"

// CookieTracking is a WebSocket transport's or path's "cookie": the
// router sets a tracking cookie on each client's upgrade response and
// knows the client again by it (Crossbar's cookie tracking). With it, an
// anonymous session of a transport without "auth" has the cookie's value
// as its authid, and "auth.cookie" admits a client whose cookie an earlier
// session authenticated by another method.
type CookieTracking struct {
	// Name is "name": the cookie's name (default "cbtid").
	Name string
	// Length is "length": the characters of its random value, 6 to 64
	// (default 24).
	Length int
	// MaxAge is "max_age" (seconds, 1 to 10 years): the cookie's lifetime,
	// sent as its Max-Age and enforced by the router (default 7 days).
	MaxAge time.Duration
	// Secure, HTTPOnly ("http_strict") and SameSite ("same_site":
	// "Strict", "Lax" or "None"; default "": not sent) are the cookie's
	// attributes.
	Secure, HTTPOnly bool
	SameSite         string
	// Store is "store" (default memory).
	Store CookieStore
}

// CookieStore is "cookie.store".
type CookieStore struct {
	// Type is "type": "memory" (the cookies die with the node) or "file".
	Type string
	// Filename is "filename" (required with "file"; relative to the node
	// directory): the file the cookies are appended to, in Crossbar's
	// format (one JSON object per line).
	Filename string
	// PurgeOnStartup is "purge_on_startup" (default false): rewrite the
	// file at start without the expired cookies.
	PurgeOnStartup bool
}

// cookieNameOK is Crossbar's cookie name rule, ^[a-z][a-z0-9_]+$.
func cookieNameOK(s string) bool {
	if len(s) < 2 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !('a' <= c && c <= 'z') && !('0' <= c && c <= '9') && c != '_' {
			return false
		}
	}
	return true
}

// cookieTracking decodes "cookie" of o; nil when absent.
func (d *decoder) cookieTracking(o *object) *CookieTracking {
	co, ok := o.child("cookie")
	if !ok {
		return nil
	}
	c := &CookieTracking{
		Name:     co.validStr("name", "cbtid", cookieNameOK, "invalid cookie name %q (want a lower case letter, then lower case letters, digits or _)"),
		Length:   int(co.integer("length", 24, 6, 64)),
		MaxAge:   time.Duration(co.integer("max_age", 7*86400, 1, 86400*360*10)) * time.Second,
		Secure:   co.boolean("secure", false),
		HTTPOnly: co.boolean("http_strict", false),
		SameSite: co.validStr("same_site", "", func(s string) bool { return s == "" || s == "Strict" || s == "Lax" || s == "None" },
			`invalid same_site %q (want "Strict", "Lax" or "None")`),
		Store: CookieStore{Type: "memory"},
	}
	if so, ok := co.child("store"); ok {
		c.Store = d.cookieStore(so)
	}
	co.done()
	return c
}

func (d *decoder) cookieStore(o *object) CookieStore {
	s := CookieStore{Type: o.reqValidStr("type", func(t string) bool { return t == "memory" || t == "file" },
		`unknown cookie store type %q (want "memory" or "file")`)}
	if s.Type == "file" {
		s.Filename = o.reqStr("filename")
		s.PurgeOnStartup = o.boolean("purge_on_startup", false)
	}
	o.done()
	return s
}

// cookieAuthAlone warns about "auth.cookie" on a transport (o) without
// cookie tracking (c nil), where it has no effect, as in Crossbar.
func (d *decoder) cookieAuthAlone(o *object, a Auth, c *CookieTracking) {
	if a.Cookie && c == nil {
		d.warnf(o.at("auth")+".cookie", "has no effect without cookie tracking (the transport's \"cookie\")")
	}
}
