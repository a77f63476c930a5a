package config

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// guest is a document with one guest worker holding members.
func guest(members string) string {
	if members != "" {
		members = ", " + members
	}
	return top(`{"type": "guest", "executable": "node"` + members + `}`)
}

// guestOpts is a guest with the given options.
func guestOpts(opts string) string { return guest(`"options": {` + opts + `}`) }

const gOpts = "workers[0].options"

func TestGuestDecode(t *testing.T) {
	def := GuestOptions{Stdout: "log", Stderr: "log", Env: ProcessEnv{InheritAll: true}}
	with := func(f func(*GuestOptions)) GuestOptions {
		o := def
		f(&o)
		return o
	}
	tests := []struct {
		name string
		doc  string
		want GuestWorker
	}{
		{"minimal", guest(""), GuestWorker{Executable: "node", Options: def}},
		{"id and arguments", guest(`"id": "Backend-1", "arguments": ["hello.js", "--port", "${PORT}"]`),
			GuestWorker{ID: "Backend-1", Executable: "node", Arguments: []string{"hello.js", "--port", "9090"}, Options: def}},
		{"workdir", guestOpts(`"workdir": "../node"`), GuestWorker{Executable: "node", Options: with(func(o *GuestOptions) { o.Workdir = "../node" })}},
		{"env inherit false", guestOpts(`"env": {"inherit": false, "vars": {"A": "1", "SECRET": "${SECRET}"}}`),
			GuestWorker{Executable: "node", Options: with(func(o *GuestOptions) {
				o.Env = ProcessEnv{Vars: map[string]string{"A": "1", "SECRET": "s3cr3t"}}
			})}},
		{"env inherit list", guestOpts(`"env": {"inherit": ["PATH", "HOME"]}`),
			GuestWorker{Executable: "node", Options: with(func(o *GuestOptions) { o.Env = ProcessEnv{Inherit: []string{"PATH", "HOME"}} })}},
		{"env inherit true", guestOpts(`"env": {"inherit": true, "vars": {"my-var": "x"}}`),
			GuestWorker{Executable: "node", Options: with(func(o *GuestOptions) {
				o.Env = ProcessEnv{InheritAll: true, Vars: map[string]string{"my-var": "x"}}
			})}},
		{"stdin close", guestOpts(`"stdin": "close"`),
			GuestWorker{Executable: "node", Options: with(func(o *GuestOptions) { o.Stdin = &GuestStdin{Type: "close", Close: true} })}},
		{"stdin json", guestOpts(`"stdin": {"type": "json", "value": {"port": 8080, "secret": "${SECRET}"}}`),
			GuestWorker{Executable: "node", Options: with(func(o *GuestOptions) {
				o.Stdin = &GuestStdin{Type: "json", Value: map[string]any{"port": json.Number("8080"), "secret": "s3cr3t"}, Close: true}
			})}},
		{"stdin json open", guestOpts(`"stdin": {"type": "json", "value": [1, "a"], "close": false}`),
			GuestWorker{Executable: "node", Options: with(func(o *GuestOptions) {
				o.Stdin = &GuestStdin{Type: "json", Value: []any{json.Number("1"), "a"}}
			})}},
		{"outputs", guestOpts(`"stdout": "drop", "stderr": "close"`),
			GuestWorker{Executable: "node", Options: with(func(o *GuestOptions) { o.Stdout, o.Stderr = "drop", "close" })}},
		{"watch", guestOpts(`"watch": {"directories": ["../node", "lib"], "action": "restart", "timeout": 0.5}`),
			GuestWorker{Executable: "node", Options: with(func(o *GuestOptions) {
				o.Watch = &GuestWatch{Directories: []string{"../node", "lib"}, Action: "restart", Timeout: 500 * time.Millisecond}
			})}},
		{"watch default timeout", guestOpts(`"watch": {"directories": ["."], "action": "restart"}`),
			GuestWorker{Executable: "node", Options: with(func(o *GuestOptions) {
				o.Watch = &GuestWatch{Directories: []string{"."}, Action: "restart", Timeout: time.Second}
			})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warns := mustParse(t, tt.doc)
			if len(warns) != 0 {
				t.Errorf("warnings:\n%s", warningsText(warns))
			}
			got, ok := c.Workers[0].(*GuestWorker)
			if !ok {
				t.Fatalf("worker is a %T", c.Workers[0])
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

// guestRuleTests are TestRules' cases for guest workers.
var guestRuleTests = []ruleTest{
	{"executable missing", top(`{"type": "guest"}`), w0 + ".executable", "required"},
	{"executable empty", top(`{"type": "guest", "executable": ""}`), w0 + ".executable", "must not be empty"},
	{"executable not a string", top(`{"type": "guest", "executable": ["node"]}`), w0 + ".executable", "must be a string, not an array"},
	{"id controller", guest(`"id": "controller"`), w0 + ".id", `invalid id "controller"`},
	{"id empty", guest(`"id": ""`), w0 + ".id", `invalid id ""`},
	{"duplicate id", top(router(`"id": "app"`), `{"type": "guest", "id": "app", "executable": "node"}`), "workers[1].id", `duplicate worker id "app"`},
	{"arguments a string", guest(`"arguments": "hello.js"`), w0 + ".arguments", "must be an array, not a string"},
	{"argument a number", guest(`"arguments": ["a", 1]`), w0 + ".arguments[1]", "must be a string, not a number"},
	{"unknown key", guest(`"argumnets": []`), w0 + ".argumnets", `did you mean "arguments"?`},
	{"transports", guest(`"transports": []`), w0 + ".transports", "unknown key"},
	{"options not an object", guest(`"options": []`), gOpts, "must be an object, not an array"},
	{"option unknown", guestOpts(`"disabled": true`), gOpts + ".disabled", "unknown key"},
	{"option misspelt", guestOpts(`"wrokdir": "x"`), gOpts + ".wrokdir", `did you mean "workdir"?`},
	{"workdir type", guestOpts(`"workdir": 1`), gOpts + ".workdir", "must be a string"},
	{"env not an object", guestOpts(`"env": "inherit"`), gOpts + ".env", "must be an object, not a string"},
	{"env unknown", guestOpts(`"env": {"var": {}}`), gOpts + ".env.var", `did you mean "vars"?`},
	{"env inherit type", guestOpts(`"env": {"inherit": "yes"}`), gOpts + ".env.inherit", "must be a boolean, not a string"},
	{"env inherit item", guestOpts(`"env": {"inherit": ["PATH", 3]}`), gOpts + ".env.inherit[1]", "must be a string, not a number"},
	{"env inherit empty name", guestOpts(`"env": {"inherit": [""]}`), gOpts + ".env.inherit", `invalid environment variable name ""`},
	{"env vars type", guestOpts(`"env": {"vars": ["A=1"]}`), gOpts + ".env.vars", "must be an object, not an array"},
	{"env var value", guestOpts(`"env": {"vars": {"A": 1}}`), gOpts + ".env.vars.A", "must be a string, not a number"},
	{"env var name", guestOpts(`"env": {"vars": {"A=B": "1"}}`), gOpts + ".env.vars", `invalid environment variable name "A=B"`},
	{"env var missing", guestOpts(`"env": {"vars": {"A": "${NO_SUCH_VAR}"}}`), gOpts + ".env.vars.A", "environment variable NO_SUCH_VAR is not set"},
	{"stdin string", guestOpts(`"stdin": "open"`), gOpts + ".stdin", `unknown stdin "open" (want close)`},
	{"stdin number", guestOpts(`"stdin": 0`), gOpts + ".stdin", "must be a string, not a number"},
	{"stdin type missing", guestOpts(`"stdin": {"value": 1}`), gOpts + ".stdin.type", "required"},
	{"stdin type", guestOpts(`"stdin": {"type": "msgpack", "value": 1}`), gOpts + ".stdin.type", `unknown stdin type "msgpack" (want json)`},
	{"stdin value missing", guestOpts(`"stdin": {"type": "json"}`), gOpts + ".stdin.value", "required"},
	{"stdin close type", guestOpts(`"stdin": {"type": "json", "value": 1, "close": "no"}`), gOpts + ".stdin.close", "must be a boolean"},
	{"stdin unknown", guestOpts(`"stdin": {"type": "json", "value": 1, "encoding": "utf8"}`), gOpts + ".stdin.encoding", "unknown key"},
	{"stdout", guestOpts(`"stdout": "file"`), gOpts + ".stdout", `unknown output "file" (want log, drop, close)`},
	{"stderr", guestOpts(`"stderr": true`), gOpts + ".stderr", "must be a string, not a boolean"},
	{"watch not an object", guestOpts(`"watch": ["."]`), gOpts + ".watch", "must be an object, not an array"},
	{"watch directories", guestOpts(`"watch": {"directories": ".", "action": "restart"}`), gOpts + ".watch.directories", "must be an array, not a string"},
	{"watch directory empty", guestOpts(`"watch": {"directories": ["a", ""], "action": "restart"}`), gOpts + ".watch.directories", "a directory must not be empty"},
	{"watch action", guestOpts(`"watch": {"directories": ["."], "action": "reload"}`), gOpts + ".watch.action", `unknown watch action "reload" (want restart)`},
	{"watch timeout negative", guestOpts(`"watch": {"directories": ["."], "action": "restart", "timeout": -1}`), gOpts + ".watch.timeout", "must be in 0..86400 seconds, not -1"},
	{"watch timeout string", guestOpts(`"watch": {"directories": ["."], "action": "restart", "timeout": "1"}`), gOpts + ".watch.timeout", "must be a number, not a string"},
	{"watch unknown", guestOpts(`"watch": {"directories": ["."], "action": "restart", "recursive": true}`), gOpts + ".watch.recursive", "unknown key"},
}

// guestWarningTests are TestWarningRules' cases for guest workers.
var guestWarningTests = []ruleTest{
	{"watch without directories", guestOpts(`"watch": {"action": "restart"}`), gOpts + ".watch", "ignored: no directories to watch"},
	{"watch without action", guestOpts(`"watch": {"directories": ["."]}`), gOpts + ".watch", `ignored: no "action": "restart"`},
}

// TestGuestYAML: a guest decodes from YAML as from JSON.
func TestGuestYAML(t *testing.T) {
	const doc = `
version: 2
workers:
  - type: guest
    executable: /bin/sh
    arguments: [tick.sh]
    options:
      workdir: ..
      stdin: {type: json, value: {a: 1}}
`
	c, _, errs := parseTest(t, doc, YAML)
	if errs != nil {
		t.Fatal(errs)
	}
	g := c.Workers[0].(*GuestWorker)
	if g.Executable != "/bin/sh" || g.Options.Workdir != ".." || g.Options.Stdin == nil || g.Options.Stdin.Type != "json" {
		t.Errorf("got %+v", g)
	}
}
