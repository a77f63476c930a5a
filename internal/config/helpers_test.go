package config

import (
	"errors"
	"strings"
	"testing"
)

// testEnv is the environment every test parses with.
var testEnv = map[string]string{
	"PORT":          "9090",
	"SECRET":        "s3cr3t",
	"FLAG":          "true",
	"NOT_A_NUMBER":  "eighty",
	"BACKEND_PORT":  "8081",
	"WORKER_SECRET": "w0rk3r",
	"SECRET_URL":    "http://secret.example/hook",
}

func lookupTestEnv(name string) (string, bool) {
	v, ok := testEnv[name]
	return v, ok
}

func parseTest(t *testing.T, doc string, format Format) (*Config, []Warning, Errors) {
	t.Helper()
	c, warns, err := Loader{LookupEnv: lookupTestEnv}.Parse([]byte(doc), format)
	if err == nil {
		return c, warns, nil
	}
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error %v (%T) is not an Errors", err, err)
	}
	if c != nil {
		t.Errorf("Parse returned a Config with errors")
	}
	return c, warns, errs
}

// mustParse parses a valid document.
func mustParse(t *testing.T, doc string) (*Config, []Warning) {
	t.Helper()
	c, warns, errs := parseTest(t, doc, JSON)
	if errs != nil {
		t.Fatalf("unexpected errors:\n%v", errs)
	}
	return c, warns
}

// top wraps workers into a whole document.
func top(workers ...string) string {
	return `{"version": 2, "workers": [` + strings.Join(workers, ",") + `]}`
}

const testRealms = `"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}]`

// router is a router worker with realm1 and the given extra members.
func router(members ...string) string {
	parts := append([]string{`"type": "router"`, testRealms}, members...)
	return "{" + strings.Join(parts, ",") + "}"
}

// transports is a router with the given transports.
func transports(ts ...string) string {
	return top(router(`"transports": [` + strings.Join(ts, ",") + `]`))
}

// web is a document with one web transport holding paths.
func web(paths string) string {
	return transports(`{"type": "web", "endpoint": {"type": "tcp", "port": 8080}, "paths": ` + paths + `}`)
}

// wsPath is a document with one websocket path "ws" holding members.
func wsPath(members string) string {
	if members != "" {
		members = ", " + members
	}
	return web(`{"ws": {"type": "websocket"` + members + `}}`)
}

// endpoint is a document with a websocket transport on the endpoint.
func endpoint(e string) string {
	return transports(`{"type": "websocket", "endpoint": ` + e + `}`)
}

// container is a document with a container worker holding a component.
func container(component string) string {
	return top(`{"type": "container", "components": [` + component + `]}`)
}

// componentWith is a container component with the given transport.
func componentWith(transport string) string {
	return container(callee(`"realm": "realm1", "transport": ` + transport))
}

// callee is a RESTCallee component with a valid "extra" and the given
// members.
func callee(members string) string {
	if members != "" {
		members = ", " + members
	}
	return `{"type": "class", "classname": "crossbar.bridge.rest.RESTCallee", "extra": {"procedure": "com.example.api", "baseurl": ""}` + members + `}`
}

func warningsText(ws []Warning) string {
	lines := make([]string, len(ws))
	for i, w := range ws {
		lines[i] = w.String()
	}
	return strings.Join(lines, "\n")
}

// wantProblem parses doc and checks that it has exactly one problem, an
// error (or, with warning, a warning and no error) at path whose message
// contains msg; path "" means no problem of that kind at all.
func wantProblem(t *testing.T, doc, path, msg string, warning bool) {
	t.Helper()
	_, warns, errs := parseTest(t, doc, JSON)
	var at, text string
	n := len(errs)
	switch {
	case warning && errs != nil:
		t.Fatalf("unexpected errors:\n%v", errs)
	case warning:
		n = len(warns)
		if n == 1 {
			at, text = warns[0].Path, warns[0].Msg
		}
	case n == 1:
		at, text = errs[0].Path, errs[0].Msg
	}
	want := 1
	if path == "" {
		want = 0
	}
	if n != want || at != path || !strings.Contains(text, msg) {
		t.Errorf("got %d (%s: %s), want %d at %s: ...%s... (errors %v, warnings %v)", n, at, text, want, path, msg, errs, warns)
	}
}
