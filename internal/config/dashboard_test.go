package config

import (
	"slices"
	"testing"
)

// dashboardOn is a document with one web transport on iface (none: every
// interface) holding paths.
func dashboardOn(iface, paths string) string {
	endpoint := `{"type": "tcp", "port": 8080}`
	if iface != "" {
		endpoint = `{"type": "tcp", "port": 8080, "interface": "` + iface + `"}`
	}
	return transports(`{"type": "web", "endpoint": ` + endpoint + `, "paths": ` + paths + `}`)
}

const dash = `{"/": {"type": "dashboard"}}`

// TestDashboardRules: a dashboard without require_ip is refused on a
// listener reachable beyond loopback (nested too, and in a universal
// transport), accepted on loopback, on a Unix socket, or with an
// allow-list; its options are strict.
func TestDashboardRules(t *testing.T) {
	tests := []struct{ name, doc, path, msg string }{
		{"loopback v4", dashboardOn("127.0.0.1", dash), "", ""},
		{"loopback v4 other", dashboardOn("127.0.0.2", dash), "", ""},
		{"loopback v6", dashboardOn("::1", dash), "", ""},
		{"unix", transports(`{"type": "web", "endpoint": {"type": "unix", "path": "s.sock"}, "paths": ` + dash + `}`), "", ""},
		{"all interfaces", dashboardOn("", dash), t0 + `.paths["/"].options.require_ip`, "required: the dashboard shows sessions' authids and peer addresses, and this transport listens on every interface"},
		{"public interface", dashboardOn("0.0.0.0", dash), t0 + `.paths["/"].options.require_ip`, "listens on interface 0.0.0.0, beyond loopback"},
		{"empty allow-list", dashboardOn("", `{"/": {"type": "dashboard", "options": {"require_ip": []}}}`), t0 + `.paths["/"].options.require_ip`, "required"},
		{"allow-list", dashboardOn("", `{"/": {"type": "dashboard", "options": {"require_ip": ["10.0.0.0/8"]}}}`), "", ""},
		{"nested", dashboardOn("", `{"ops": {"type": "path", "paths": {"dash": {"type": "dashboard"}}}}`), t0 + ".paths.ops.paths.dash.options.require_ip", "required"},
		{"universal", transports(`{"type": "universal", "endpoint": {"type": "tcp", "port": 8080}, "web": {"paths": ` + dash + `}}`),
			t0 + `.web.paths["/"].options.require_ip`, "required"},
		{"require_ip type", dashboardOn("127.0.0.1", `{"/": {"type": "dashboard", "options": {"require_ip": "10.0.0.1"}}}`), t0 + `.paths["/"].options.require_ip`, "must be an array"},
		{"option unknown", dashboardOn("127.0.0.1", `{"/": {"type": "dashboard", "options": {"requireip": []}}}`), t0 + `.paths["/"].options.requireip`, `did you mean "require_ip"?`},
		{"key unknown", dashboardOn("127.0.0.1", `{"/": {"type": "dashboard", "realm": "realm1"}}`), t0 + `.paths["/"].realm`, "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantProblem(t, tt.doc, tt.path, tt.msg, false) })
	}
}

// TestDashboardDecode: require_ip is kept as written (node parses it).
func TestDashboardDecode(t *testing.T) {
	c, _ := mustParse(t, dashboardOn("", `{"/": {"type": "dashboard", "options": {"require_ip": ["10.0.0.0/8", "::1"]}}}`))
	s := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["/"].(*DashboardService)
	if !slices.Equal(s.RequireIP, []string{"10.0.0.0/8", "::1"}) || s.PathType() != "dashboard" {
		t.Errorf("decoded %+v", s)
	}
}
