package auth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// CookieOptions configures a CookieStore.
type CookieOptions struct {
	Name     string        // the cookie's name; "" means "cbtid"
	Length   int           // characters of its random value; 0 means 24
	MaxAge   time.Duration // its lifetime; 0 means 7 days
	Secure   bool          // the Secure attribute
	HTTPOnly bool          // the HttpOnly attribute
	SameSite string        // the SameSite attribute, "" for none
	// File, when not "", keeps the cookies in that file (appended to, one
	// JSON object per line, as Crossbar's file store); "" keeps them in
	// memory only.
	File string
	// PurgeOnStartup rewrites File without the expired cookies when the
	// store opens.
	PurgeOnStartup bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger logs a failed write of File (the cookie is kept in memory
	// all the same); nil means slog.Default().
	Logger *slog.Logger
}

// CookieStore is a WebSocket transport's tracking cookies and who each
// last authenticated as (Crossbar's cookie store). Safe for concurrent
// use: mu guards the cookies and the file, which is written under it
// (one line per new or changed cookie; no callback runs under it).
type CookieStore struct {
	o       CookieOptions
	mu      sync.Mutex
	cookies map[string]*cookie
	file    *os.File // nil for a memory store, or until the first write
	closed  bool
}

// cookie is one tracking cookie.
type cookie struct {
	created time.Time
	maxAge  time.Duration
	id      *Identity // who it last authenticated as; nil for nobody
}

// cookieRecord is a line of the file, as Crossbar writes it.
type cookieRecord struct {
	ID         string    `json:"id"`
	Created    string    `json:"created,omitempty"`
	Modified   string    `json:"modified,omitempty"`
	MaxAge     int64     `json:"max_age"`
	AuthID     *string   `json:"authid"`
	AuthRole   *string   `json:"authrole"`
	AuthMethod *string   `json:"authmethod"`
	AuthRealm  *string   `json:"authrealm"`
	AuthExtra  wamp.Dict `json:"authextra"`
}

// crossbarTime is autobahn's utcstr: UTC, milliseconds, "Z".
const crossbarTime = "2006-01-02T15:04:05.000Z"

// OpenCookieStore opens the store o describes: for a file store, reads
// the file if it exists (the last line of each cookie wins). Nothing is
// written until the first cookie is: then the file is purged if asked
// and opened for appending. Close it when done.
func OpenCookieStore(o CookieOptions) (*CookieStore, error) {
	if o.Name == "" {
		o.Name = "cbtid"
	}
	if o.Length == 0 {
		o.Length = 24
	}
	if o.MaxAge == 0 {
		o.MaxAge = 7 * 24 * time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &CookieStore{o: o, cookies: map[string]*cookie{}}
	if o.File == "" {
		return s, nil
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

// open purges the file if asked and opens it for appending, once. s.mu
// must be held.
func (s *CookieStore) open() error {
	if s.file != nil || s.closed {
		return nil
	}
	if s.o.PurgeOnStartup {
		if err := s.purge(); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(s.o.File, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("auth: cookie store: %w", err)
	}
	s.file = f
	return nil
}

// Close closes the file of a file store.
func (s *CookieStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file = nil
	return err
}

// load reads the file, if there is one.
func (s *CookieStore) load() error {
	f, err := os.Open(s.o.File)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("auth: cookie store: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var r cookieRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("auth: cookie store %s line %d: %w", s.o.File, line, err)
		}
		s.apply(&r)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("auth: cookie store %s: %w", s.o.File, err)
	}
	return nil
}

// apply sets a cookie as a record of the file says.
func (s *CookieStore) apply(r *cookieRecord) {
	c := s.cookies[r.ID]
	if c == nil {
		c = &cookie{}
		s.cookies[r.ID] = c
	}
	if t, err := time.Parse(crossbarTime, r.Created); err == nil {
		c.created = t
	}
	c.maxAge = time.Duration(r.MaxAge) * time.Second
	c.id = nil
	if r.AuthID != nil && r.AuthRole != nil {
		c.id = &Identity{AuthID: *r.AuthID, AuthRole: *r.AuthRole, AuthExtra: r.AuthExtra}
		if r.AuthMethod != nil {
			c.id.AuthMethod = *r.AuthMethod
		}
		if r.AuthRealm != nil {
			c.id.Realm = wamp.URI(*r.AuthRealm)
		}
	}
}

// purge rewrites the file with the live cookies only: a new file renamed
// over the old one, so that a crash leaves one or the other whole.
func (s *CookieStore) purge() error {
	now := s.o.Now()
	tmp, err := os.CreateTemp(filepath.Dir(s.o.File), filepath.Base(s.o.File)+".*")
	if err != nil {
		return fmt.Errorf("auth: cookie store: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	for cbtid, c := range s.cookies {
		if c.expired(now) {
			delete(s.cookies, cbtid)
			continue
		}
		b, _ := json.Marshal(record(cbtid, c, "created"))
		w.Write(append(b, '\n'))
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("auth: cookie store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("auth: cookie store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("auth: cookie store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.o.File); err != nil {
		return fmt.Errorf("auth: cookie store: %w", err)
	}
	return nil
}

func (c *cookie) expired(now time.Time) bool { return !now.Before(c.created.Add(c.maxAge)) }

// record is the file's line for a cookie; status is "created" or
// "modified", the key its time is written under, as Crossbar does.
func record(cbtid string, c *cookie, status string) *cookieRecord {
	r := &cookieRecord{ID: cbtid, MaxAge: int64(c.maxAge / time.Second), Created: c.created.UTC().Format(crossbarTime)}
	if status == "modified" {
		r.Modified = r.Created
	}
	if c.id != nil {
		method, realm := c.id.AuthMethod, string(c.id.Realm)
		r.AuthID, r.AuthRole, r.AuthMethod, r.AuthRealm, r.AuthExtra = &c.id.AuthID, &c.id.AuthRole, &method, &realm, c.id.AuthExtra
	}
	return r
}

// Track returns the tracking cookie of a client whose upgrade request
// has header h: its cookie when the store knows it and it has not
// expired, else a new one, with the Set-Cookie header value to send.
func (s *CookieStore) Track(h http.Header) (cbtid, setCookie string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, err := (&http.Request{Header: h}).Cookie(s.o.Name); err == nil {
		if k := s.cookies[c.Value]; k != nil && !k.expired(s.o.Now()) {
			return c.Value, ""
		}
	}
	cbtid = newCookieValue(s.o.Length)
	c := &cookie{created: s.o.Now(), maxAge: s.o.MaxAge}
	s.cookies[cbtid] = c
	s.persist(cbtid, c, "created")
	return cbtid, s.header(cbtid)
}

// header is the Set-Cookie value for cbtid, with Crossbar's attributes.
func (s *CookieStore) header(cbtid string) string {
	v := s.o.Name + "=" + cbtid + ";max-age=" + strconv.FormatInt(int64(s.o.MaxAge/time.Second), 10)
	if s.o.Secure {
		v += ";Secure"
	}
	if s.o.HTTPOnly {
		v += ";HttpOnly"
	}
	if s.o.SameSite != "" {
		v += ";SameSite=" + s.o.SameSite
	}
	return v
}

// cookieChars are the characters of a cookie value.
const cookieChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func newCookieValue(n int) string {
	b := randomBytes(n)
	for i := range b {
		b[i] = cookieChars[int(b[i])%len(cookieChars)]
	}
	return string(b)
}

// persist appends cookie cbtid's record to the file, if any, and syncs
// it. s.mu must be held. A failed write is kept in memory all the same.
func (s *CookieStore) persist(cbtid string, c *cookie, status string) {
	if s.o.File == "" {
		return
	}
	err := s.open()
	if err == nil && s.file != nil {
		b, _ := json.Marshal(record(cbtid, c, status))
		if _, err = s.file.Write(append(b, '\n')); err == nil {
			err = s.file.Sync()
		}
	}
	if err != nil {
		s.o.Logger.Warn("cookie store: cannot write the file; the cookie lives in memory only", "file", s.o.File, "err", err)
	}
}

// Remember records that the session of cookie cbtid authenticated as id
// (not by cookie: such a session changes nothing), as Crossbar does when
// a session joins.
func (s *CookieStore) Remember(cbtid string, id Identity) {
	if cbtid == "" || id.AuthProvider == ProviderCookie {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cookies[cbtid]
	if c == nil {
		return
	}
	kept := Identity{AuthID: id.AuthID, AuthRole: id.AuthRole, AuthMethod: id.AuthMethod, AuthExtra: id.AuthExtra, Realm: id.Realm}
	if c.id != nil && c.id.AuthID == kept.AuthID && c.id.AuthRole == kept.AuthRole && c.id.AuthMethod == kept.AuthMethod && c.id.Realm == kept.Realm {
		return
	}
	c.id = &kept
	s.persist(cbtid, c, "modified")
}

// lookup returns who cookie cbtid authenticated as; false when nobody
// or when it expired.
func (s *CookieStore) lookup(cbtid string) (Identity, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cookies[cbtid]
	if c == nil || c.id == nil || c.expired(s.o.Now()) {
		return Identity{}, false
	}
	return *c.id, true
}

// Forget records that cookie cbtid authenticates nobody any more (the
// client logged out), as Crossbar does.
func (s *CookieStore) Forget(cbtid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.cookies[cbtid]; c != nil && c.id != nil {
		c.id = nil
		s.persist(cbtid, c, "modified")
	}
}
