package config

import (
	"testing"
	"time"
)

func TestCookieTracking(t *testing.T) {
	c, _ := mustParse(t, wsPath(`"cookie": {}, "auth": {"ticket": {"type": "static", "principals": {}}, "cookie": {}}`))
	s := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["ws"].(*WebSocketService)
	want := CookieTracking{Name: "cbtid", Length: 24, MaxAge: 7 * 24 * time.Hour, Store: CookieStore{Type: "memory"}}
	if s.Cookie == nil || *s.Cookie != want || !s.Auth.Cookie || s.Auth.Default {
		t.Errorf("cookie = %+v, auth.cookie %v", s.Cookie, s.Auth.Cookie)
	}
	c, _ = mustParse(t, transports(`{"type": "websocket", "endpoint": {"type": "tcp", "port": 80}, "cookie": {"name": "sid_2", "length": 6,
		"max_age": 60, "secure": true, "http_strict": true, "same_site": "Strict",
		"store": {"type": "file", "filename": "cookies.dat", "purge_on_startup": true}}}`))
	tr := c.Workers[0].(*RouterWorker).Transports[0].(*WebSocketTransport)
	want = CookieTracking{Name: "sid_2", Length: 6, MaxAge: time.Minute, Secure: true, HTTPOnly: true, SameSite: "Strict",
		Store: CookieStore{Type: "file", Filename: "cookies.dat", PurgeOnStartup: true}}
	if tr.Cookie == nil || *tr.Cookie != want || !tr.Auth.Default {
		t.Errorf("cookie = %+v, auth %+v", tr.Cookie, tr.Auth)
	}
}

func TestCookieTrackingRules(t *testing.T) {
	p := ws + ".cookie"
	cookie := func(members string) string { return wsPath(`"cookie": {` + members + `}`) }
	tests := []ruleTest{
		{"name", cookie(`"name": "Sid"`), p + ".name", `invalid cookie name "Sid"`},
		{"length", cookie(`"length": 5`), p + ".length", "must be in 6..64"},
		{"max_age", cookie(`"max_age": 0`), p + ".max_age", "must be in 1.."},
		{"same_site", cookie(`"same_site": "strict"`), p + ".same_site", `invalid same_site "strict"`},
		{"store type", cookie(`"store": {"type": "redis"}`), p + ".store.type", `unknown cookie store type "redis"`},
		{"store type missing", cookie(`"store": {}`), p + ".store.type", "required"},
		{"file name", cookie(`"store": {"type": "file"}`), p + ".store.filename", "required"},
		{"memory with file name", cookie(`"store": {"type": "memory", "filename": "x"}`), p + ".store.filename", "unknown"},
		{"unknown", cookie(`"domain": "x"`), p + ".domain", "unknown"},
	}
	runRuleTests(t, tests)
}
