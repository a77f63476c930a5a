//go:build linux

package node

import (
	"fmt"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/web"
)

// TestHTTPEngineLogged: a web transport's "listening" line names the
// engine that serves it, with the loop engine's number of loops; asked
// for the loop engine where its loops would serve nothing (with the
// access log), the node warns and Junction's own engine serves.
func TestHTTPEngineLogged(t *testing.T) {
	const warning = "http_engine loop has nothing to serve on this transport"
	tests := []struct {
		name, options, want string
		warns               bool
	}{
		{"loop", `{"http_engine": "loop"}`, fmt.Sprintf("http_engine=loop loops=%d", web.DefaultLoops()), false},
		{"loop with the access log", `{"http_engine": "loop", "access_log": true}`, "http_engine=junction\n", true},
		{"junction", `{"http_engine": "junction"}`, "http_engine=junction\n", false},
		{"stdlib", `{"http_engine": "stdlib"}`, "http_engine=stdlib\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, log := startLogged(t, `{"version": 2, "workers": [{"type": "router",
				"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
				"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
					"options": `+tt.options+`,
					"paths": {"proxy": {"type": "reverseproxy", "host": "127.0.0.1", "port": 9}}}]}]}`)
			var line string
			for l := range strings.Lines(log.String()) {
				if strings.Contains(l, "msg=listening") {
					line = l
				}
			}
			if !strings.Contains(line, tt.want) {
				t.Errorf("listening line %q lacks %q", line, tt.want)
			}
			if got := strings.Contains(log.String(), warning); got != tt.warns {
				t.Errorf("warning logged: %v, want %v:\n%s", got, tt.warns, log)
			}
		})
	}
}
