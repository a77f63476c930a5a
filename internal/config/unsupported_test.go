package config

import (
	"strings"
	"testing"
)

// TestRefusalsSayWhy: what Junction refuses of Crossbar's configuration
// says what it is and what to do instead.
func TestRefusalsSayWhy(t *testing.T) {
	const (
		w0  = "workers[0]"
		t0  = w0 + ".transports[0]"
		ctr = "workers[0].components[0].transport"
	)
	tests := []struct {
		name, doc, path string
		msgs            []string // each is in the message
	}{
		{"no version", `{"workers": []}`, "version",
			[]string{"required", "Crossbar's old format (version 1)", `"crossbar upgrade"`, `add "version": 2`}},
		{"version 1", `{"version": 1, "workers": []}`, "version", []string{"too old (version 1)", `"crossbar upgrade"`}},
		{"websocket.testee", transports(`{"type": "websocket.testee"}`), t0 + ".type", []string{"Autobahn test suite", "use a websocket-testee worker"}},
		{"stream.testee", transports(`{"type": "stream.testee"}`), t0 + ".type", []string{"TCP echo server", "guest worker"}},
		{"rawsocket url scheme", componentWith(`{"type": "rawsocket", "serializer": "json", "url": "ws://127.0.0.1:8080",
			"endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 8080}}`), ctr + ".url", []string{`scheme "ws" is not for RawSocket`}},
		{"rawsocket url path", componentWith(`{"type": "rawsocket", "serializer": "json", "url": "rs://127.0.0.1:8080/ws",
			"endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 8080}}`), ctr + ".url", []string{`non-empty path "/ws"`}},
		{"rawsocket url port", componentWith(`{"type": "rawsocket", "serializer": "json", "url": "rs://127.0.0.1:0",
			"endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 8080}}`), ctr + ".url", []string{`port "0" not in 1..65535`}},
		{"rawsocket url host", componentWith(`{"type": "rawsocket", "serializer": "json", "url": "rs:///x",
			"endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 8080}}`), ctr + ".url", []string{"missing host"}},
		{"rawsocket url query", componentWith(`{"type": "rawsocket", "serializer": "json", "url": "rs://h:1?x=1",
			"endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 8080}}`), ctr + ".url", []string{"non-empty query"}},
		{"rawsocket url unix without path", componentWith(`{"type": "rawsocket", "serializer": "json", "url": "rs://unix:",
			"endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 8080}}`), ctr + ".url", []string{"missing socket path"}},
		{"rawsocket url not a string", componentWith(`{"type": "rawsocket", "serializer": "json", "url": 1,
			"endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 8080}}`), ctr + ".url", []string{"must be a string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, tt.doc, JSON)
			if len(errs) != 1 || errs[0].Path != tt.path {
				t.Fatalf("got %d errors, want 1 at %q:\n%v", len(errs), tt.path, errs)
			}
			for _, m := range tt.msgs {
				if !strings.Contains(errs[0].Msg, m) {
					t.Errorf("%q lacks %q", errs[0].Msg, m)
				}
			}
		})
	}
}

// TestRawSocketComponentURL: a container component's RawSocket transport
// takes Crossbar's informational "url" (rs://, rss://, rs://unix:/path)
// and "debug" (ignored, with a warning).
func TestRawSocketComponentURL(t *testing.T) {
	for _, u := range []string{"rs://127.0.0.1:8080", "rss://example.com", "rs://unix:/tmp/cb.sock", "RS://host:65535", ""} {
		doc := componentWith(`{"type": "rawsocket", "serializer": "cbor", "url": "` + u + `",
			"endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 8080}}`)
		if _, warns := mustParse(t, doc); len(warns) != 0 {
			t.Errorf("%q: warnings %s", u, warningsText(warns))
		}
	}
	_, warns := mustParse(t, componentWith(`{"type": "rawsocket", "serializer": "json", "debug": true,
		"endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 8080}}`))
	if len(warns) != 1 || warns[0].Path != "workers[0].components[0].transport.debug" || !strings.Contains(warns[0].Msg, "--loglevel debug") {
		t.Errorf("debug: warnings %s", warningsText(warns))
	}
}

// TestDatabaseConnectionsIgnored: a worker's or the controller's
// database "connections" load with a warning at their path, as Crossbar
// 21.3.1 checks them and never opens them.
func TestDatabaseConnectionsIgnored(t *testing.T) {
	const pool = `[{"id": "pgpool1", "type": "postgresql.connection", "host": "localhost", "port": 5432}]`
	tests := []struct{ name, doc, path string }{
		{"router", top(router(`"connections": ` + pool)), "workers[0].connections"},
		{"container", top(`{"type": "container", "connections": ` + pool + `}`), "workers[0].connections"},
		{"controller", `{"version": 2, "controller": {"connections": ` + pool + `}}`, "controller.connections"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, warns := mustParse(t, tt.doc)
			if len(warns) != 1 || warns[0].Path != tt.path || !strings.Contains(warns[0].Msg, "never opens") {
				t.Errorf("warnings:\n%s\nwant one at %s", warningsText(warns), tt.path)
			}
		})
	}
}
