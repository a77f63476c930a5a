package auth

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func cookieHeader(name, value string) http.Header {
	return http.Header{"Cookie": {"other=1; " + name + "=" + value}}
}

func TestCookieStoreTrack(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s, err := OpenCookieStore(CookieOptions{Name: "sid", Length: 10, MaxAge: time.Hour, Secure: true, HTTPOnly: true, SameSite: "Lax", Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	cbtid, set := s.Track(http.Header{})
	if len(cbtid) != 10 || set != "sid="+cbtid+";max-age=3600;Secure;HttpOnly;SameSite=Lax" {
		t.Fatalf("new cookie %q, Set-Cookie %q", cbtid, set)
	}
	if again, set := s.Track(cookieHeader("sid", cbtid)); again != cbtid || set != "" {
		t.Errorf("known cookie: %q %q, want %q and no Set-Cookie", again, set, cbtid)
	}
	if other, set := s.Track(cookieHeader("sid", "forged")); other == "forged" || set == "" {
		t.Errorf("unknown cookie kept: %q %q", other, set)
	}
	c.t = c.t.Add(time.Hour)
	if other, set := s.Track(cookieHeader("sid", cbtid)); other == cbtid || set == "" {
		t.Errorf("expired cookie kept: %q %q", other, set)
	}
}

func TestCookieAuth(t *testing.T) {
	c := &clock{t: time.Now()}
	s, _ := OpenCookieStore(CookieOptions{MaxAge: time.Minute, Now: c.now})
	a := Cookie(s)
	cbtid, _ := s.Track(http.Header{})
	req := &Request{Realm: "realm1", AuthMethods: []string{"cookie", "ticket"}, Peer: wamp.PeerInfo{CBTID: cbtid}}
	if Applies(a, req) {
		t.Fatal("a cookie nobody authenticated applies")
	}
	s.Remember(cbtid, Identity{AuthID: "alice", AuthRole: "user", AuthMethod: "ticket", AuthProvider: "static", Realm: "realm2"})
	id, ch, err := a.Start(req)
	if !Applies(a, req) || err != nil || ch != nil || id.AuthID != "alice" || id.AuthRole != "user" ||
		id.AuthMethod != "ticket" || id.AuthProvider != "cookie" || id.Realm != "realm2" {
		t.Errorf("cookie login: %+v %v %v", id, ch, err)
	}
	// A session admitted by cookie changes nothing.
	s.Remember(cbtid, Identity{AuthID: "mallory", AuthRole: "admin", AuthProvider: ProviderCookie})
	if id, _ := s.lookup(cbtid); id.AuthID != "alice" {
		t.Errorf("cookie session overwrote the cookie: %+v", id)
	}
	c.t = c.t.Add(time.Minute)
	if Applies(a, req) {
		t.Error("an expired cookie applies")
	}
}

func TestCookieStoreFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cookies.dat")
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	o := CookieOptions{File: file, MaxAge: time.Hour, Now: c.now}
	s, err := OpenCookieStore(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("opening wrote the file: %v", err)
	}
	old, _ := s.Track(http.Header{})
	c.t = c.t.Add(30 * time.Minute)
	live, _ := s.Track(http.Header{})
	s.Remember(live, Identity{AuthID: "bob", AuthRole: "user", AuthMethod: "wampcra", Realm: "realm1", AuthExtra: wamp.Dict{"x": "y"}})
	s.Close()
	b, _ := os.ReadFile(file)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	want := `{"id":"` + live + `","modified":"2026-01-02T03:34:05.000Z","max_age":3600,"authid":"bob","authrole":"user","authmethod":"wampcra","authrealm":"realm1","authextra":{"x":"y"}}`
	if len(lines) != 3 || !strings.Contains(lines[0], `"created":"2026-01-02T03:04:05.000Z"`) || !strings.Contains(lines[0], `"authid":null`) {
		t.Fatalf("file:\n%s", b)
	}
	if !strings.Contains(lines[2], `"authid":"bob","authrole":"user","authmethod":"wampcra","authrealm":"realm1","authextra":{"x":"y"}`) {
		t.Errorf("last line %s, want like %s", lines[2], want)
	}

	// Reopened: the cookies are known again; with purge_on_startup the
	// first write rewrites the file without the expired one.
	c.t = c.t.Add(45 * time.Minute)
	o.PurgeOnStartup = true
	s, err = OpenCookieStore(o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if id, ok := s.lookup(live); !ok || id.AuthID != "bob" || id.Realm != "realm1" || id.AuthExtra["x"] != "y" {
		t.Errorf("reloaded cookie: %+v %v", id, ok)
	}
	if got, set := s.Track(cookieHeader("cbtid", live)); got != live || set != "" {
		t.Errorf("reloaded cookie not tracked: %q %q", got, set)
	}
	s.Track(http.Header{})
	b, _ = os.ReadFile(file)
	if strings.Contains(string(b), old) || !strings.Contains(string(b), live) {
		t.Errorf("purged file:\n%s", b)
	}
}

func TestCookieStoreBadFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cookies.dat")
	os.WriteFile(file, []byte("{\"id\": \"a\"}\nnot json\n"), 0o600)
	if _, err := OpenCookieStore(CookieOptions{File: file}); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err = %v, want one naming line 2", err)
	}
}
