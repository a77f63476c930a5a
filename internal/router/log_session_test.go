package router

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/loginguard"
	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/wamp"
)

// TestSessionLogLines: each line the router writes about a session, at
// its level, with its attributes (a number is a float64 once decoded).
func TestSessionLogLines(t *testing.T) {
	const peer = "192.0.2.7:40000"
	ticket := func(realm wamp.URI, authid, answer string) func(t *testing.T, c *client) {
		return func(t *testing.T, c *client) {
			c.send(&wamp.Hello{Realm: realm, Details: wamp.Dict{"authid": authid, "authmethods": []any{"ticket"}}})
			expect[*wamp.Challenge](c)
			c.send(&wamp.Authenticate{Signature: answer, Extra: wamp.Dict{}})
		}
	}
	tests := []struct {
		name  string
		auths []auth.Authenticator
		run   func(t *testing.T, c *client)
		level string
		msg   string
		attrs map[string]any
	}{
		{"wrong ticket", []auth.Authenticator{ticketAuth{role: "user"}}, ticket("realm1", "alice", "guess-123"),
			"WARN", "join refused", map[string]any{"peer": peer, "realm": "realm1", "authid": "alice", "authmethod": "ticket",
				"error": "wamp.error.authentication_denied", "reason": "wrong ticket"}},
		{"unknown realm", nil, func(t *testing.T, c *client) {
			c.send(&wamp.Hello{Realm: "nope", Details: wamp.Dict{}})
		}, "WARN", "join refused", map[string]any{"peer": peer, "realm": "nope", "authmethod": "anonymous",
			"error": "wamp.error.no_such_realm", "reason": `no realm "nope"`}},
		{"role not on the realm", []auth.Authenticator{ticketAuth{role: "ghost"}}, ticket("realm1", "bob", "secret"),
			"WARN", "join refused", map[string]any{"authid": "bob", "authmethod": "ticket", "error": "wamp.error.no_such_role",
				"reason": `role "ghost" does not exist on realm "realm1"`}},
		{"no authentication method", nil, func(t *testing.T, c *client) {
			c.send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"authid": "carol", "authmethods": []any{"ticket", "wampcra"}}})
		}, "WARN", "join refused", map[string]any{"authid": "carol", "authmethods": []any{"ticket", "wampcra"},
			"error": "wamp.error.no_auth_method"}},
		{"violation in the handshake", nil, func(t *testing.T, c *client) {
			c.send(&wamp.Subscribe{Request: 1, Options: wamp.Dict{}, Topic: "com.t"})
		}, "INFO", "protocol violation", map[string]any{"peer": peer, "what": "first message must be HELLO, not SUBSCRIBE"}},
		{"violation in a session", nil, func(t *testing.T, c *client) {
			c.hello("realm1", nil)
			c.send(&wamp.Welcome{Session: 1, Details: wamp.Dict{}})
		}, "INFO", "protocol violation", map[string]any{"peer": peer, "realm": "realm1", "what": "unexpected WELCOME message"}},
		{"session joined", nil, func(t *testing.T, c *client) {
			c.hello("realm1", nil)
		}, "DEBUG", "session joined", map[string]any{"realm": "realm1", "authrole": "anonymous", "authmethod": "anonymous",
			"transport": "fake", "peer": peer}},
		{"session left", []auth.Authenticator{ticketAuth{role: "user"}}, func(t *testing.T, c *client) {
			ticket("realm1", "alice", "secret")(t, c)
			expect[*wamp.Welcome](c)
			c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseRealm})
		}, "DEBUG", "session left", map[string]any{"realm": "realm1", "authid": "alice", "authrole": "user",
			"authmethod": "ticket", "transport": "fake", "peer": peer}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log logtest.Log
			opts := Options{Realms: []RealmOptions{{Name: "realm1", Roles: []string{"anonymous", "user"}}}, Logger: log.Logger(slog.LevelDebug)}
			bubble(t, opts, func(t *testing.T, r *Router) {
				c := attachFrom(t, r.Gate(tt.auths...), peer)
				tt.run(t, c)
				synctest.Wait()
				lines := log.Lines(t, tt.msg)
				if len(lines) != 1 {
					t.Fatalf("%d %q lines, want 1; log:\n%s", len(lines), tt.msg, &log)
				}
				if lines[0]["level"] != tt.level {
					t.Errorf("level %v, want %s", lines[0]["level"], tt.level)
				}
				for k, want := range tt.attrs {
					if got := lines[0][k]; fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s = %v, want %v", k, got, want)
					}
				}
				if _, ok := lines[0]["session"].(float64); !ok {
					t.Errorf("no session ID: %v", lines[0])
				}
				if strings.Contains(log.String(), "guess-123") {
					t.Errorf("the log holds the ticket:\n%s", &log)
				}
			})
		})
	}
}

// TestSessionLogsNothingAtWarn: a session that joins and leaves cleanly
// writes nothing at --loglevel warn.
func TestSessionLogsNothingAtWarn(t *testing.T) {
	var buf logtest.Log
	bubble(t, Options{Logger: buf.Logger(slog.LevelWarn)}, func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseRealm})
		expect[*wamp.Goodbye](c)
		c.waitDone()
	})
	if buf.String() != "" {
		t.Errorf("a clean session at --loglevel warn logged:\n%s", &buf)
	}
}

// TestJoinRefusedFlood: 1,000 logins with a wrong ticket from one address,
// all at once, give at most loginguard.PeerLogBurst "join refused" lines per window
// and a "lines held back" line per window that held some; every refusal
// is either logged or counted. Another address is logged all the same.
func TestJoinRefusedFlood(t *testing.T) {
	const n = 1000
	var log logtest.Log
	synctest.Test(t, func(t *testing.T) {
		r, err := New(Options{Realms: []RealmOptions{{Name: "realm1"}}, Logger: log.Logger(slog.LevelDebug)})
		if err != nil {
			t.Fatal(err)
		}
		g := r.Gate(ticketAuth{role: "user"})
		start := time.Now()
		clients := make([]*client, n)
		for i := range clients {
			clients[i] = attachFrom(t, g, fmt.Sprintf("203.0.113.9:%d", 10000+i))
			clients[i].send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"authid": "alice", "authmethods": []any{"ticket"}}})
		}
		for _, c := range clients {
			if _, ok := c.recv().(*wamp.Challenge); ok {
				c.send(&wamp.Authenticate{Signature: "wrong", Extra: wamp.Dict{}})
				expect[*wamp.Abort](c)
			}
			c.waitDone()
		}
		windows := int(time.Since(start)/loginguard.PeerLogWindow) + 1
		other := attachFrom(t, g, "198.51.100.1:5000")
		other.send(&wamp.Hello{Realm: "nope", Details: wamp.Dict{}})
		other.waitDone()
		r.Close()

		refused := log.Lines(t, "join refused")
		logged := 0
		for _, l := range refused {
			if l["peer"] != "198.51.100.1:5000" {
				logged++
			}
		}
		if logged == 0 || logged > windows*loginguard.PeerLogBurst || len(refused) != logged+1 {
			t.Errorf("%d lines for the flood over %d windows (at most %d per window), %d in all; want 1 for the other address",
				logged, windows, loginguard.PeerLogBurst, len(refused))
		}
		held := 0
		heldLines := log.Lines(t, "join refused: lines held back")
		for _, l := range heldLines {
			if l["peer"] != "203.0.113.9" || l["level"] != "WARN" {
				t.Errorf("held back line %v", l)
			}
			held += int(l["count"].(float64))
		}
		t.Logf("%d logged, %d held back in %d lines, %d windows", logged, held, len(heldLines), windows)
		if len(heldLines) == 0 || len(heldLines) > windows || logged+held != n {
			t.Errorf("%d logged + %d held back in %d lines (over %d windows), want %d in all", logged, held, len(heldLines), windows, n)
		}
	})
}
